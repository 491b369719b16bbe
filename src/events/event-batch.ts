// A run of a queue's events with consecutive ids: the routed event objects themselves (shared by every queue that got
// the same form) and the id of the first; each event's id is its position's. Serialized with the ids spliced in
// (reply-json.ts); toJSON() gives the numbered copies for anything else (the cluster's wire, dumps, tests).

/** An event as the router hands it to queues, before a queue numbers it. */
export type ClientEvent = Record<string, unknown> & { type: string };
/** An event with its queue's id, as a client receives it. */
export type QueuedEvent = ClientEvent & { id: number };

export class EventBatch {
  /** `events` is the batch's own array: nobody changes it after this. */
  constructor(readonly firstId: number, readonly events: readonly ClientEvent[]) {}

  get length(): number {
    return this.events.length;
  }

  /** The numbered events: a copy of each with its `id` (what JSON.stringify writes for the batch). */
  toJSON(): QueuedEvent[] {
    return this.events.map((e, i) => ({ ...e, id: this.firstId + i }));
  }
}

/** Events as a reply carries them: a queue's batch, or numbered events from elsewhere (another process's queue). */
export type ReplyEvents = EventBatch | readonly QueuedEvent[];

/** The numbered events of either form. */
export function numbered(events: ReplyEvents): QueuedEvent[] {
  return events instanceof EventBatch ? events.toJSON() : [...events];
}
