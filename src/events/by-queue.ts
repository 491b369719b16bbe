// Handles (parked polls, open sockets) by the queue they are on, so a queue's expiry finds its own without walking
// every parked poll or open socket of the process.
export class HandlesByQueue<H> {
  private readonly sets = new Map<string, Set<H>>();

  add(queueId: string, handle: H): void {
    let set = this.sets.get(queueId);
    if (!set) this.sets.set(queueId, (set = new Set()));
    set.add(handle);
  }

  delete(queueId: string, handle: H): void {
    const set = this.sets.get(queueId);
    if (!set?.delete(handle)) return;
    if (set.size === 0) this.sets.delete(queueId);
  }

  /** The queue's handles, copied: the caller may remove them while it walks the list. */
  of(queueId: string): H[] {
    const set = this.sets.get(queueId);
    return set ? [...set] : [];
  }

  /** Queues with a handle (for tests: nothing is left behind). */
  get size(): number {
    return this.sets.size;
  }
}
