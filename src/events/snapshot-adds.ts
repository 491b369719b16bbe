// register's sections read from the database (drafts, saved snippets, navigation views, scheduled messages,
// reminders) against their `add` events. The queue is created first and the snapshot read after, so a row added
// between the two can be both in the snapshot and in an `add` event: one the queue already holds when the snapshot is
// done, or one whose event reaches the queue later (it committed before the read, and its event was still on its way:
// the realm actor routes a batch's events after its commit; in cluster mode a replica gets them later still). Clients
// append on `add`, so either would list the row twice. The cut (EventRouter.cutSnapshot): a row whose `add` the queue
// already holds leaves the snapshot; for every other row of the snapshot the queue drops the next `add` of it that
// arrives within ADD_FILTER_MS. Every other event of these types (update, remove) replaces or deletes by key and is
// delivered as is. Sections read from memory are cut by the queue's creation itself, and message sections by
// `messagesUpTo`.
import type { ClientEvent } from './event-batch.js';

/** How long after register a queue drops `add` events of rows its snapshot showed: longer than a committed batch's
 *  events take to reach any process's queues (the cluster replica keeps batches 30 s for loads under way). */
export const ADD_FILTER_MS = 60_000;

type Row = Record<string, unknown>;

/** Per event type: the snapshot's field listing the rows, each row's key, and the rows an `add` event carries. */
const SECTIONS: Record<string, { field: string; key: string; added: (e: ClientEvent) => unknown }> = {
  drafts: { field: 'drafts', key: 'id', added: (e) => e.drafts },
  saved_snippets: { field: 'saved_snippets', key: 'id', added: (e) => [e.saved_snippet] },
  navigation_view: { field: 'navigation_views', key: 'fragment', added: (e) => [e.navigation_view] },
  scheduled_messages: { field: 'scheduled_messages', key: 'scheduled_message_id', added: (e) => e.scheduled_messages },
  reminders: { field: 'reminders', key: 'reminder_id', added: (e) => e.reminders },
};

/** The keys (`type:key`) of the rows an `add` event of these sections carries; null for any other event. */
export function addedKeys(e: ClientEvent): string[] | null {
  if (e.op !== 'add') return null;
  const s = SECTIONS[e.type as string];
  if (!s) return null;
  const rows = s.added(e);
  return Array.isArray(rows) ? rows.map((r: Row) => `${e.type as string}:${String(r?.[s.key])}`) : [];
}

/**
 * Cuts a register snapshot against what its queue holds: removes from the snapshot the rows whose `add` the queue
 * already holds (in place); returns the keys of the rows it still shows, whose `add` the queue must drop.
 */
export function cutSnapshot(snapshot: Record<string, unknown>, queued: readonly ClientEvent[]): Set<string> {
  const inQueue = new Set<string>();
  for (const e of queued) for (const k of addedKeys(e) ?? []) inQueue.add(k);
  const shown = new Set<string>();
  for (const [type, s] of Object.entries(SECTIONS)) {
    const rows = snapshot[s.field];
    if (!Array.isArray(rows)) continue;
    const kept = (rows as Row[]).filter((r) => !inQueue.has(`${type}:${String(r[s.key])}`));
    if (kept.length !== rows.length) snapshot[s.field] = kept;
    for (const r of kept) shown.add(`${type}:${String(r[s.key])}`);
  }
  return shown;
}
