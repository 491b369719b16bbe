// Event queues across a restart: one queue's state as a versioned msgpackr buffer, and back to a queue's input.
import { Packr, Unpackr } from '../msgpack.js';
import type { EventQueue, EventQueueInput, QueuedEvent, RestoredState } from './event-queue.js';

/** Bump with every change of QueueDump's shape, and add the step from the previous version to `migrations`. */
export const QUEUE_DUMP_VERSION = 1;

export interface QueueDump {
  version: number;
  queueId: string;
  userId: number;
  realmId: number;
  maxEvents: number;
  heartbeatMs: number;
  idleTimeoutMs: number;
  registration?: Record<string, unknown>;
  lastEventId: number;
  firstUnacked: number;
  lastActivity: number;
  events: QueuedEvent[];
}

/** What restoreQueue gives back: a queue's input less the filter, which the restoring process supplies. */
export type RestoredQueueInput = Omit<EventQueueInput, 'filter'> & { restored: RestoredState };

/** migrations[n] turns a version-n dump into a version n+1 dump. */
const migrations: Record<number, (dump: Record<string, unknown>) => Record<string, unknown>> = {};

const packr = new Packr({ useRecords: false });
const unpackr = new Unpackr({ useRecords: false });

/** Brings a decoded dump of any known version up to QUEUE_DUMP_VERSION. */
export function migrateDump(raw: unknown): QueueDump {
  if (typeof raw !== 'object' || raw === null) throw new Error('Queue dump is not an object');
  let dump = raw as Record<string, unknown>;
  if (typeof dump.version !== 'number' || !Number.isInteger(dump.version)) throw new Error('Queue dump has no version');
  let version: number = dump.version;
  if (version > QUEUE_DUMP_VERSION) throw new Error(`Queue dump version ${version} is newer than ${QUEUE_DUMP_VERSION}`);
  while (version < QUEUE_DUMP_VERSION) {
    const step = migrations[version];
    if (!step) throw new Error(`No migration from queue dump version ${version}`);
    dump = { ...step(dump), version: version + 1 };
    version = version + 1;
  }
  return checkDump(dump);
}

function checkDump(d: Record<string, unknown>): QueueDump {
  const ints = ['userId', 'realmId', 'maxEvents', 'heartbeatMs', 'idleTimeoutMs', 'lastEventId', 'firstUnacked', 'lastActivity'];
  for (const k of ints) if (!Number.isFinite(d[k])) throw new Error(`Queue dump field ${k} is not a number`);
  if (typeof d.queueId !== 'string' || d.queueId === '') throw new Error('Queue dump has no queueId');
  if (!Array.isArray(d.events)) throw new Error('Queue dump has no events');
  const dump = d as unknown as QueueDump;
  // The buffer holds ids firstUnacked..lastEventId without gaps; anything else would break acknowledgement.
  if (dump.events.length !== dump.lastEventId - dump.firstUnacked + 1) throw new Error('Queue dump events do not match its ids');
  dump.events.forEach((e, i) => {
    if (e?.id !== dump.firstUnacked + i || typeof e.type !== 'string') throw new Error('Queue dump events do not match its ids');
  });
  return dump;
}

/** One live queue as a buffer. A parked poll or an open socket does not survive (its connection will not), but counts
 *  as activity until now. */
export function dumpQueue(q: EventQueue): Buffer {
  if (q.status !== 'active') throw new Error('Only a live queue can be dumped');
  const dump: QueueDump = {
    version: QUEUE_DUMP_VERSION,
    queueId: q.queueId,
    userId: q.userId,
    realmId: q.realmId,
    maxEvents: q.maxEvents,
    heartbeatMs: q.heartbeatMs,
    idleTimeoutMs: q.idleTimeoutMs,
    lastEventId: q.lastEventId,
    firstUnacked: q.firstUnacked,
    lastActivity: q.activeUntil(),
    events: q.queued(),
  };
  if (q.registration !== undefined) dump.registration = q.registration;
  return packr.pack(dump);
}

/** A dumped queue as input for a new queue (add `filter`, rebuilt from `registration`). Throws on a bad dump. */
export function restoreQueue(buf: Uint8Array): RestoredQueueInput {
  const d = migrateDump(unpackr.unpack(buf));
  const input: RestoredQueueInput = {
    queueId: d.queueId,
    userId: d.userId,
    realmId: d.realmId,
    maxEvents: d.maxEvents,
    heartbeatMs: d.heartbeatMs,
    idleTimeoutMs: d.idleTimeoutMs,
    lastEventId: d.lastEventId,
    restored: { events: d.events, firstUnacked: d.firstUnacked, lastActivity: d.lastActivity },
  };
  if (d.registration !== undefined) input.registration = d.registration;
  return input;
}
