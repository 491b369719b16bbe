// Handles (parked polls, open sockets) by the queue they are on, so a queue's expiry finds its own without walking
// every parked poll or open socket of the process. A queue almost always has one handle (a newer poll or socket
// replaces the old one), so a lone handle is kept as it is and a set made only for a second: parking a poll allocates
// nothing here.
export class HandlesByQueue<H extends string | number> {
  private readonly entries = new Map<string, H | Set<H>>();

  add(queueId: string, handle: H): void {
    const known = this.entries.get(queueId);
    if (known === undefined) this.entries.set(queueId, handle);
    else if (typeof known === 'object') known.add(handle);
    else if (known !== handle) this.entries.set(queueId, new Set([known, handle]));
  }

  delete(queueId: string, handle: H): void {
    const known = this.entries.get(queueId);
    if (known === undefined) return;
    if (typeof known !== 'object') {
      if (known === handle) this.entries.delete(queueId);
      return;
    }
    if (!known.delete(handle)) return;
    if (known.size === 1) this.entries.set(queueId, known.values().next().value!);
  }

  /** The queue's handles, copied: the caller may remove them while it walks the list. */
  of(queueId: string): H[] {
    const known = this.entries.get(queueId);
    if (known === undefined) return [];
    return typeof known === 'object' ? [...known] : [known];
  }

  /** Queues with a handle (for tests: nothing is left behind). */
  get size(): number {
    return this.entries.size;
  }
}
