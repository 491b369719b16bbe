// Message IDs a realm actor reserves from the sequence in blocks and hands to its batches of sends in mailbox order,
// so a batch needs no statement of its own to draw them (realm/batch.ts).

/** IDs reserved per draw by default: one statement per that many sends. */
export const ID_BLOCK = 1000;

/**
 * A block of message IDs drawn from the sequence, handed out in ascending order. The realm actor's batches take
 * theirs one after another in mailbox order, so IDs follow that order. Whoever inserts a message of the realm with an
 * ID drawn otherwise (from the sequence in the insert) drops the block first, and the next block is drawn only once
 * that insert is done: a later block's IDs are above it. (Rows inserted behind the actor's back are found by the
 * statement that writes ahead: messages.insertIfTopicsExist.)
 */
export class MessageIdBlock {
  private ids: number[] = [];
  private next = 0;

  /** `size`: how many IDs a draw reserves at least (0: just those asked for). */
  constructor(private readonly size = ID_BLOCK) {}

  /** Whether `n` IDs are left. */
  holds(n: number): boolean {
    return this.ids.length - this.next >= n;
  }

  /** A new block of at least `n` IDs, drawn by `draw` (ascending), instead of what was left (gone even if it fails). */
  async refill(n: number, draw: (n: number) => Promise<number[]>): Promise<void> {
    this.drop();
    this.ids = await draw(Math.max(n, this.size));
  }

  /** The next `n` IDs (holds(n) must be true). */
  take(n: number): number[] {
    if (!this.holds(n)) throw new Error(`${n} message IDs asked of a block holding ${this.ids.length - this.next}`);
    const taken = this.ids.slice(this.next, this.next + n);
    this.next += n;
    return taken;
  }

  /** Forgets what is left: the next batch draws a new block. */
  drop(): void {
    this.ids = [];
    this.next = 0;
  }
}
