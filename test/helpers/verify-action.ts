// The consistency check (after Zulip's verify_action): register, run an operation, apply the events it
// produced to the first snapshot, and compare with a fresh snapshot.
import type { ExecutionContext } from 'ava';
import { applyEvents } from './apply-events.js';
import type { Credentials } from './http.js';
import type { TestServer } from './server.js';

/** Fields that differ between any two registers, whatever happened in between. */
const VOLATILE = ['queue_id', 'last_event_id', 'server_timestamp', 'presence_last_update_id'];
/** Deprecated enums the reference computes at register from the group settings that replaced them; no event
 *  carries them and its apply_event does not follow them, so they are not compared. */
const DERIVED_AT_REGISTER = [
  'realm_create_public_stream_policy',
  'realm_create_private_stream_policy',
  'realm_create_web_public_stream_policy',
  'realm_wildcard_mention_policy',
];

const ID_KEYS = ['user_id', 'stream_id', 'id', 'fragment', 'scheduled_message_id', 'reminder_id', 'other_user_id', 'user_ids_string'];

/** Orders lists of records by their ID so that order alone never makes two snapshots differ. */
function normalize(value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = value.map(normalize);
    const key = ID_KEYS.find((k) => items.length > 0 && items.every((x) => x && typeof x === 'object' && k in (x as object)));
    if (key) {
      // Ties (several unread topics of one channel) are ordered by their content.
      const tie = (x: unknown) => JSON.stringify(x);
      items.sort((a, b) => {
        const ka = (a as any)[key];
        const kb = (b as any)[key];
        return ka < kb ? -1 : ka > kb ? 1 : tie(a) < tie(b) ? -1 : tie(a) > tie(b) ? 1 : 0;
      });
    }
    return items;
  }
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) out[k] = normalize((value as Record<string, unknown>)[k]);
    return out;
  }
  return value;
}

export interface VerifyOptions {
  /** Extra register parameters (client_capabilities, include_subscribers, …). */
  register?: Record<string, string>;
  /** event_types for the queue and both snapshots; all types when absent. */
  eventTypes?: string[];
}

/** Returns the events the operation produced for `viewer`, after asserting snapshot + events = fresh snapshot. */
export async function verifyAction(
  t: ExecutionContext,
  s: TestServer,
  viewer: Credentials,
  action: () => Promise<unknown>,
  opts: VerifyOptions = {},
): Promise<Record<string, any>[]> {
  const form = { ...opts.register, ...(opts.eventTypes ? { event_types: JSON.stringify(opts.eventTypes) } : {}) };
  const before = (await s.client.as(viewer).post('/register', { form })).json;
  if (!before.queue_id) throw new Error(`register failed: ${JSON.stringify(before)}`);
  await action();
  // Events are published after the commit and before the write's caller is answered, so they are queued now.
  const polled = await s.client.as(viewer).get('/events', { query: { queue_id: before.queue_id, last_event_id: '-1', dont_block: 'true' } });
  const events = polled.json.events as Record<string, any>[];
  const applied = applyEvents(before, events as never);
  const after = (await s.client.as(viewer).post('/register', { form })).json;
  for (const k of [...VOLATILE, ...DERIVED_AT_REGISTER]) {
    delete applied[k];
    delete after[k];
  }
  t.deepEqual(normalize(applied), normalize(after), 'the snapshot plus the events equals a fresh snapshot');
  return events;
}
