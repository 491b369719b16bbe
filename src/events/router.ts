// The event router: takes what realm actors publish and delivers it to the live queues of its recipients,
// applying each queue's event_types, narrow, all_public_streams and client capabilities, one enqueue per queue. Every
// queue that gets the same form of an event (the same flags, the same formKey) gets the same object, made once per
// published event: a delivery to a parked poll copies nothing per queue.
import type { ClientEvent } from './event-batch.js';
import type { EventQueue } from './event-queue.js';
import { eventForQueue, formKey } from './queue-form.js';
import { shareEvent } from './reply-json.js';
import { toWire } from './wire.js';
import { compilePredicate, parseNarrow, resolveNarrow, type NarrowMessage, type NarrowResolver } from '../narrow/index.js';
import type { EventHub } from '../bus/hub.js';
import { recipientId, type ClientCapability, type MessageFacts, type RealmEvent, type WireEvent } from '../bus/events.js';
import type { RestoredQueueInput } from './queue-dump.js';
import type { QueueRegistry } from './queue-registry.js';
import { wantsType, type QueueRegistration } from './registration.js';
import { ADD_FILTER_MS, addedKeys, cutSnapshot } from './snapshot-adds.js';
import { committedBefore } from '../persistence/snapshots.js';

interface LiveQueue {
  queueId: string;
  realmId: number;
  userId: number;
  registration: QueueRegistration;
  /** Register's narrow compiled to a predicate on message events; null when there is none. */
  narrow: ((msg: NarrowMessage) => boolean) | null;
  /** Messages up to this ID are in the queue's register snapshot: their events are not delivered to it. */
  messagesUpTo: number;
  /** The database snapshot of the working set its register read (RealmState.loadedAt), null when unknown. */
  loadedAt: string | null;
  /** The queue itself (the router forgets it when it expires). */
  queue: EventQueue;
  /** Which form of an event the queue receives (queue-form.ts). */
  form: number;
}

/** Builds a narrow resolver for a realm and user, from the realm's working set. */
export type ResolverFactory = (realmId: number, userId: number) => NarrowResolver;

/** Whether the user may still follow every public channel (Zulip's can_access_public_streams), asked at delivery. */
export type PublicAccessCheck = (realmId: number, userId: number) => boolean;

export class EventRouter {
  private readonly live = new Map<string, LiveQueue>();
  private readonly byUser = new Map<number, Set<LiveQueue>>();
  private readonly allPublic = new Map<number, Set<LiveQueue>>();
  private readonly unsubscribe: () => void;
  /** By queue ID, in expiry order: rows a register snapshot showed whose `add` event the queue drops (snapshot-adds.ts). */
  private readonly snapshotAdds = new Map<string, { keys: Set<string>; until: number }>();
  delivered = 0;

  constructor(
    hub: EventHub,
    private readonly queues: QueueRegistry,
    private readonly resolverFor: ResolverFactory,
    private readonly mayFollowAllPublic: PublicAccessCheck = () => true,
  ) {
    this.unsubscribe = hub.subscribe((realmId, events) => this.route(realmId, events), 'event router');
    queues.on('expired', (e) => this.forget(e.queueId));
  }

  /**
   * Creates a queue for a user with a registration; returns its ID. `messagesUpTo`: the newest message its register
   * snapshot shows (the working set's newest, whose event was routed before this queue existed); an event of a
   * message up to it is not delivered to the queue (cluster mode: a batch a process's load already read, arriving
   * after it, or a former owner's last batch).
   */
  create(realmId: number, userId: number, registration: QueueRegistration, messagesUpTo = -1, loadedAt: string | null = null): string {
    const narrow = this.compileNarrow(realmId, userId, registration);
    const queueId = this.queues.create(userId, realmId, { registration: registration as never });
    this.track(queueId, realmId, userId, registration, narrow, messagesUpTo, loadedAt);
    return queueId;
  }

  /**
   * After a register's snapshot was built (nothing awaited since): rows of its database-read sections whose `add`
   * event the queue already holds leave the snapshot (in place); the queue drops the `add` of every other row it shows.
   */
  cutSnapshot(queueId: string, snapshot: Record<string, unknown>): void {
    const queue = this.queues.get(queueId);
    if (!queue) return;
    const now = performance.now();
    for (const [id, f] of this.snapshotAdds) {
      if (f.until > now) break;
      this.snapshotAdds.delete(id);
    }
    const keys = cutSnapshot(snapshot, queue.queued());
    if (keys.size > 0) this.snapshotAdds.set(queueId, { keys, until: now + ADD_FILTER_MS });
  }

  /** An `add` of a row the queue's register snapshot showed: dropped, once per row. */
  private inSnapshot(q: LiveQueue, event: ClientEvent): boolean {
    const f = this.snapshotAdds.get(q.queueId);
    if (!f) return false;
    if (f.until <= performance.now()) {
      this.snapshotAdds.delete(q.queueId);
      return false;
    }
    const keys = addedKeys(event);
    if (!keys?.length || !keys.every((k) => f.keys.has(k))) return false;
    for (const k of keys) f.keys.delete(k);
    return true;
  }

  /**
   * Restores a dumped queue (its registration travels with it) and delivers to it; false when the dump does not
   * decode or its queue is live already. A registration that no longer resolves throws before the queue exists.
   */
  restore(dump: Uint8Array): boolean {
    let prepared: { input: RestoredQueueInput; narrow: LiveQueue['narrow'] } | null = null;
    const r = this.queues.restore([dump], (input) => {
      const reg = input.registration as unknown as QueueRegistration;
      prepared = { input, narrow: this.compileNarrow(input.realmId, input.userId, reg) };
      return undefined;
    });
    if (r.restored !== 1 || prepared === null) return false;
    const { input, narrow } = prepared as { input: RestoredQueueInput; narrow: LiveQueue['narrow'] };
    this.track(input.queueId, input.realmId, input.userId, input.registration as unknown as QueueRegistration, narrow, -1, null);
    return true;
  }

  /** Every queue the router delivers to. */
  liveQueues(): { queueId: string; realmId: number; userId: number }[] {
    return [...this.live.values()].map(({ queueId, realmId, userId }) => ({ queueId, realmId, userId }));
  }

  registrationOf(queueId: string): QueueRegistration | undefined {
    return this.live.get(queueId)?.registration;
  }

  stop(): void {
    this.unsubscribe();
  }

  private track(
    queueId: string,
    realmId: number,
    userId: number,
    registration: QueueRegistration,
    narrow: LiveQueue['narrow'],
    messagesUpTo: number,
    loadedAt: string | null,
  ): void {
    const queue = this.queues.get(queueId);
    if (!queue) throw new Error(`queue ${queueId} is not live`);
    const q: LiveQueue = { queueId, realmId, userId, registration, narrow, messagesUpTo, loadedAt, queue, form: formKey(registration) };
    this.live.set(q.queueId, q);
    let set = this.byUser.get(q.userId);
    if (!set) this.byUser.set(q.userId, (set = new Set()));
    set.add(q);
    if (q.registration.allPublicStreams) {
      let pub = this.allPublic.get(q.realmId);
      if (!pub) this.allPublic.set(q.realmId, (pub = new Set()));
      pub.add(q);
    }
  }

  private forget(queueId: string): void {
    const q = this.live.get(queueId);
    if (!q) return;
    this.live.delete(queueId);
    this.snapshotAdds.delete(queueId);
    const set = this.byUser.get(q.userId);
    set?.delete(q);
    if (set?.size === 0) this.byUser.delete(q.userId);
    const pub = this.allPublic.get(q.realmId);
    pub?.delete(q);
    if (pub?.size === 0) this.allPublic.delete(q.realmId);
  }

  private compileNarrow(realmId: number, userId: number, reg: QueueRegistration): LiveQueue['narrow'] {
    if (reg.narrow.length === 0) return null;
    const terms = parseNarrow(reg.narrow);
    const resolved = resolveNarrow(terms, this.resolverFor(realmId, userId), { unknownChannel: 'match-nothing' });
    return compilePredicate(resolved, { id: userId });
  }

  /**
   * Delivers a realm's events to the queues of their recipients. `readBy`: the ID of the transaction that committed
   * them, given when a working set of this process was loaded in a snapshot that already held it (cluster mode: a
   * batch arriving after a load that read it): a queue whose register read such a working set shows it already, and
   * does not get them.
   */
  route(realmId: number, events: RealmEvent[], readBy?: string): void {
    // One published event (the common case) goes to each queue at once; several are gathered, one enqueue per queue.
    const batches = events.length > 1 ? new Map<LiveQueue, ClientEvent[]>() : null;
    for (const re of events) {
      const p: Published = { re, wire: toWire(re.event), variants: new Map(), readBy };
      // Only an all_public_streams event needs to know who got it as a recipient.
      const seen = re.allPublicStreams ? new Set<LiveQueue>() : null;
      for (const r of re.users) {
        const queues = this.byUser.get(recipientId(r));
        if (!queues) continue;
        const flags = typeof r === 'number' ? undefined : r.flags;
        const variant = this.variant(p, flags);
        for (const q of queues) {
          if (q.realmId !== realmId) continue;
          seen?.add(q);
          this.add(batches, q, p, variant, flags);
        }
      }
      if (re.allPublicStreams) {
        const variant = this.variant(p, NO_FLAGS);
        for (const q of this.allPublic.get(realmId) ?? []) {
          // A user demoted to guest since registering gets only what they receive as a recipient.
          if (!seen!.has(q) && this.mayFollowAllPublic(realmId, q.userId)) this.add(batches, q, p, variant, NO_FLAGS);
        }
      }
    }
    if (batches) for (const [q, evs] of batches) this.enqueue(q, evs);
  }

  /** The event with one recipient's flags, shared by every recipient with the same flags. */
  private variant(p: Published, flags: string[] | undefined): Variant {
    const key = flags === undefined ? '' : ',' + flags.join(',');
    let v = p.variants.get(key);
    if (!v) p.variants.set(key, (v = { event: flags ? { ...p.wire, flags } : p.wire, forms: [] }));
    return v;
  }

  private add(batches: Map<LiveQueue, ClientEvent[]> | null, q: LiveQueue, p: Published, v: Variant, flags: string[] | undefined): void {
    // In the queue's register snapshot already (its working set's load read the change).
    if (p.readBy !== undefined && q.loadedAt !== null && committedBefore(p.readBy, q.loadedAt)) return;
    if (p.re.event.kind === 'message') {
      // Already in the queue's snapshot (cluster mode: a batch its process's load had read, arriving after it).
      if ((p.re.event.message.id as number) <= q.messagesUpTo) return;
      if (q.narrow && !q.narrow(narrowMessage(p.re.event.facts, flags))) return;
    }
    // A row its register snapshot already showed (only just after a register: the map is empty otherwise).
    else if (this.snapshotAdds.size > 0 && this.inSnapshot(q, v.event)) return;
    const { re } = p;
    // The common case (no capability variants, not the sender's queue): the shared form, made once.
    if (!re.skipWith && !re.legacy && re.senderQueue?.queueId !== q.queueId) {
      if (!wantsType(q.registration, v.event.type)) return;
      let shaped = v.forms[q.form];
      if (!shaped) {
        v.forms[q.form] = shaped = eventForQueue(q.registration, v.event);
        shareEvent(shaped);
      }
      this.addTo(batches, q, shaped);
      return;
    }
    const list: ClientEvent[] = [];
    for (const e of this.adapt(q, p, v.event)) if (wantsType(q.registration, e.type)) list.push(eventForQueue(q.registration, e));
    if (list.length === 0) return;
    if (!batches) this.enqueue(q, list);
    else for (const e of list) this.addTo(batches, q, e);
  }

  private addTo(batches: Map<LiveQueue, ClientEvent[]> | null, q: LiveQueue, e: ClientEvent): void {
    if (!batches) {
      // The queue never keeps the array it is handed, so one serves every queue.
      this.one[0] = e;
      this.enqueue(q, this.one);
      return;
    }
    const list = batches.get(q);
    if (list) list.push(e);
    else batches.set(q, [e]);
  }

  private readonly one: ClientEvent[] = [];

  private enqueue(q: LiveQueue, events: readonly ClientEvent[]): void {
    q.queue.enqueue(events);
    this.delivered += events.length;
  }

  /** The form of an event this queue receives, given its capabilities. */
  private adapt(q: LiveQueue, p: Published, event: ClientEvent): ClientEvent[] {
    const { re } = p;
    if (re.skipWith && q.registration.capabilities[re.skipWith]) return [];
    let out: ClientEvent[] = [event];
    if (re.legacy) {
      for (const [cap, replacement] of Object.entries(re.legacy)) {
        if (!q.registration.capabilities[cap as ClientCapability]) {
          p.legacy ??= {};
          out = p.legacy[cap as ClientCapability] ??= (replacement ?? []).map(toWire);
          break;
        }
      }
    }
    if (re.senderQueue && re.senderQueue.queueId === q.queueId) {
      out = out.map((e) => ({ ...e, local_message_id: re.senderQueue!.localId }));
    }
    return out;
  }
}

/** A published event with its wire form, made once for all the queues (the legacy variants when first needed). */
interface Published {
  re: RealmEvent;
  wire: WireEvent;
  /** route's readBy. */
  readBy: string | undefined;
  legacy?: Partial<Record<ClientCapability, WireEvent[]>>;
  /** By the recipients' flags (joined; '' for an event without flags). */
  variants: Map<string, Variant>;
}

/** The event with one list of flags, and its forms by form key (queue-form.ts), each made when first needed. */
interface Variant {
  event: ClientEvent;
  forms: (ClientEvent | undefined)[];
}

/** all_public_streams: a channel message for a non-recipient carries no flags. */
const NO_FLAGS = Object.freeze([]) as unknown as string[];

/** A message event's message as the narrow predicate sees it, with one recipient's flags. */
function narrowMessage(facts: MessageFacts, flags: string[] | undefined): NarrowMessage {
  return { ...facts, flags: new Set(flags), topicIsFollowed: false, topicIsMuted: false };
}
