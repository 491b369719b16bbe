// When each key was first seen, for the newest keys: a bounded memo that forgets in whole generations.

/**
 * Remembers when each key was first seen: at least the newest `keep` keys, at most twice as many. A full
 * generation is dropped whole, in constant time; deleting a Map's oldest key one at a time instead costs a scan
 * over the holes the earlier deletions left (about 10 µs per key at 10,000 keys).
 */
export class FirstSeen<K> {
  private current = new Map<K, number>();
  private previous = new Map<K, number>();

  constructor(private readonly keep: number) {}

  /** When `key` was first seen; `now` (and remembered) if it was not, or was forgotten. */
  at(key: K, now: number): number {
    const at = this.current.get(key) ?? this.previous.get(key);
    if (at !== undefined) return at;
    if (this.current.size >= this.keep) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(key, now);
    return now;
  }
}
