// Runs a batch of realm commands: checks against memory, then every write in one transaction (group commit), in a
// pipeline after the earlier batches' writes or, for sends that need nothing of them, ahead of them (BatchPipe).
import { ApiError, errors } from '../errors.js';
import type { Db, Tx } from '../persistence/db.js';
import { isConnectionError, isStatementError } from '../persistence/errors.js';
import { touchedBy, type AheadWriter, type CommandDef, type CommandRegistry, type Outcome, type PendingCommand, type Touched } from './commands.js';
import { MessageIdBlock } from './message-ids.js';
import type { RealmState } from './state.js';
import { writeOrder } from './write-order.js';

/** The tag of a write batch's transaction: operators' metrics read the batch size from it. */
export interface RealmBatchTag {
  name: 'realm-batch';
  writes: number;
  /**
   * Set by the database a realm actor writes through in cluster mode (its fencing check): the transaction's ID, by
   * which another process tells whether a working set it loaded already holds the batch.
   */
  commitId?: string;
}

export function isRealmBatchTag(tag: unknown): tag is RealmBatchTag {
  return typeof tag === 'object' && tag !== null && (tag as RealmBatchTag).name === 'realm-batch';
}

export type { Outcome };

/** A batch's answers; `uncertain` when the connection failed under it, so the commit may or may not have happened. */
export interface BatchResult {
  /**
   * One per command checked, in the batch's order: those taken with it and those that joined it before its writes
   * started. Commands that joined a batch that ended without writing have none (the realm actor takes them again).
   */
  outcomes: Outcome[];
  uncertain: boolean;
  /** The committed transaction's ID when the database told it (RealmBatchTag.commitId). */
  commitId?: string;
}

export function failure(err: unknown): Outcome {
  if (err instanceof ApiError) return { ok: false, error: err };
  if (isConnectionError(err)) return { ok: false, error: errors.unavailable('Database unavailable') };
  return { ok: false, error: err };
}

interface Planned {
  index: number;
  plan: unknown;
  touched: Touched | undefined;
}

/** How a batch fits in the realm actor's pipeline (see realm.machine.ts); every part is optional. */
export interface BatchPipe {
  /**
   * Settles once every earlier batch's writes are done (or it ended): this batch's transaction is opened (BEGIN, and
   * in cluster mode its fencing query) meanwhile, and its first write waits for it, unless the batch writes ahead
   * (`turn`). Commands may join the batch (pushed onto its array) until onWriting: they are checked then.
   */
  after?: Promise<void>;
  /**
   * Settles once the batch may write ahead of `after` (every earlier batch has taken its message IDs, and few enough
   * still write: realm.machine.ts); absent: `after`. A batch whose writes all say how (CommandDef.writeAhead) takes its
   * message IDs then (from `ids`), so IDs keep the mailbox order, and writes at once; any other batch, or one whose
   * writes turned out to need more, waits for `after` before its first write, holding no lock meanwhile (an earlier
   * batch never waits for it).
   */
  turn?: Promise<void>;
  /**
   * The realm's block of message IDs, shared by its batches (realm/message-ids.ts); absent: a batch draws its own,
   * just as many as it needs.
   */
  ids?: MessageIdBlock;
  /** Called when the turn is passed and the writes start (the pipeline may then take the next batch). */
  onWriting?: () => void;
  /** Called once the batch has taken its message IDs ahead of its writes (the next batch may take its own). */
  onIdsDrawn?: () => void;
  /** Called once the last write is done, just before COMMIT is sent; not when nothing was written or every attempt failed. */
  onWritten?: () => void;
}

/**
 * Checks the batch against memory, then writes and commits it. In a pipeline (`pipe`), its writes start only after
 * the earlier batches' are done, or ahead of them when they can (see BatchPipe), and it tells when its own start and
 * end.
 */
export async function runBatch(
  db: Db,
  state: RealmState,
  registry: CommandRegistry,
  batch: PendingCommand[],
  pipe: BatchPipe = {},
): Promise<BatchResult> {
  const outcomes: Outcome[] = [];
  let uncertain = false;
  const planned: Planned[] = [];
  /** How many of the batch's commands were checked: the batch's answers cover these (BatchResult.outcomes). */
  let checked = 0;
  /** Checks the commands not checked yet: first those taken with the batch, then those that joined it while it
   *  waited for the previous batch's writes (BatchPipe.after). */
  const checkNew = () => {
    for (; checked < batch.length; checked++) {
      const index = checked;
      const cmd = batch[index]!;
      const def = registry[cmd.kind];
      if (!def) {
        outcomes[index] = failure(new Error(`unknown realm command ${cmd.kind}`));
        continue;
      }
      try {
        const plan = def.check(state, cmd.input);
        if (def.write) planned.push({ index, plan, touched: touchedBy(registry, state, cmd) ?? undefined });
        else outcomes[index] = { ok: true, value: plan };
      } catch (err) {
        outcomes[index] = failure(err);
      }
    }
  };
  checkNew();
  if (planned.length === 0) return { outcomes, uncertain };
  const defOf = (p: Planned) => registry[batch[p.index]!.kind]!;

  /** One command in its own savepoint, so a failing write does not fail the others. */
  async function writeOne(t: Tx, p: Planned): Promise<void> {
    try {
      const value = await t.tx((sp) => defOf(p).write!(sp, p.plan, state));
      outcomes[p.index] = { ok: true, value };
    } catch (err) {
      if (isConnectionError(err)) throw err;
      outcomes[p.index] = failure(err);
    }
  }

  /** A run of commands of one kind written together; on an error, each again on its own. */
  async function writeRun(t: Tx, def: CommandDef, run: Planned[]): Promise<void> {
    let results: Outcome[];
    try {
      results = await t.tx((sp) => def.writeBatch!(sp, run.map((p) => p.plan), state));
    } catch (err) {
      if (isConnectionError(err)) throw err;
      for (const p of run) await writeOne(t, p);
      return;
    }
    settleRun(run, results);
  }

  function settleRun(run: Planned[], results: Outcome[]): void {
    run.forEach((p, k) => {
      const r = results[k]!;
      outcomes[p.index] = r.ok ? r : failure(r.error);
    });
  }

  /** The batch's writes in groups of one kind, in the order to write them (see writeOrder). */
  let order: Planned[][] | undefined;
  function runs(): Planned[][] {
    if (order) return order;
    const groups = writeOrder(planned.map((p) => ({ kind: batch[p.index]!.kind, touched: p.touched })));
    order = groups.flatMap((g) => {
      const members = g.map((i) => planned[i]!);
      // A kind without a bulk write writes each of its commands alone.
      return defOf(members[0]!).writeBatch ? [members] : members.map((p) => [p]);
    });
    return order;
  }

  /**
   * Every write of the batch without savepoints, in write order (the commands of a kind that writes in bulk
   * together). Any write that throws aborts the whole transaction: the caller then writes the batch again with
   * writeAll.
   */
  async function writeOptimistic(t: Tx): Promise<void> {
    for (const run of runs()) {
      const def = defOf(run[0]!);
      if (run.length > 1) settleRun(run, await def.writeBatch!(t, run.map((p) => p.plan), state));
      else outcomes[run[0]!.index] = { ok: true, value: await def.write!(t, run[0]!.plan, state) };
    }
  }

  /**
   * Every write of the batch, each run in its own savepoint: a run of one kind written in bulk (unless `bulk` is
   * false: the bulk write already failed), otherwise each command alone. Write order kept.
   */
  async function writeAll(t: Tx, bulk: boolean): Promise<void> {
    for (const run of runs()) {
      if (run.length > 1 && bulk) await writeRun(t, defOf(run[0]!), run);
      else for (const p of run) await writeOne(t, p);
    }
  }

  const tag: RealmBatchTag = { name: 'realm-batch', writes: planned.length };
  const ids = pipe.ids ?? new MessageIdBlock(0);

  /** The kind of every write of the batch, when they are all of one kind that may be written ahead (CommandDef.writeAhead). */
  function aheadKind(): CommandDef | null {
    const def = defOf(planned[0]!);
    return def.writeAhead && def.withMessageId && planned.every((p) => defOf(p) === def) ? def : null;
  }

  /** How to write the whole batch ahead, when memory shows it can be (CommandDef.writeAhead). */
  function aheadWriter(): AheadWriter<unknown> | null {
    return aheadKind()?.writeAhead!(planned.map((p) => p.plan), state) ?? null;
  }

  /** The turn was passed (a later attempt, after a rollback, waits for the earlier batches' writes alone). */
  let started = false;
  /** Written ahead: the batch's writer and its message IDs, kept by its plans too (for the writes after a topic start). */
  type Ahead = { write: AheadWriter<unknown>; ids: number[] };

  /**
   * Waits for the batch's turn, checks the commands that joined it meanwhile (none join once onWriting is called),
   * and, when it can write ahead, gives it its message IDs from the block, drawing a new block (after the earlier
   * batches' writes) when this one holds too few. A batch that cannot, and may insert messages (IDs drawn by its
   * inserts, above the block's), drops the block.
   */
  async function takeTurn(): Promise<Ahead | null> {
    await (pipe.turn ?? pipe.after);
    started = true;
    pipe.onWriting?.();
    checkNew();
    tag.writes = planned.length;
    const write = aheadWriter();
    if (!write) {
      if (planned.some((p) => p.touched === undefined || defOf(p).withMessageId)) ids.drop();
      return null;
    }
    if (!ids.holds(planned.length)) {
      await pipe.after;
      await ids.refill(planned.length, (n) => db.messages.drawIds(n));
    }
    const taken = ids.take(planned.length);
    const def = defOf(planned[0]!);
    planned.forEach((p, i) => (p.plan = def.withMessageId!(p.plan, taken[i]!)));
    pipe.onIdsDrawn?.();
    return { write, ids: taken };
  }

  /**
   * Writes the batch ahead; whether it was. After a topic start the plans keep their IDs; when the realm holds a
   * message above them (inserted behind the block's back) the block and the plans' IDs are given up: the inserts
   * draw theirs, after the earlier batches' writes (so do the later batches that took IDs of the same block: their
   * statements find the same message).
   */
  async function writeAhead(t: Tx, ahead: Ahead): Promise<boolean> {
    const results = await ahead.write(t, ahead.ids);
    if (results === 'topic-start') return false;
    if (results === 'ids-below') {
      ids.drop();
      const def = defOf(planned[0]!);
      for (const p of planned) p.plan = def.withMessageId!(p.plan, null);
      return false;
    }
    settleRun(planned, results);
    return true;
  }

  /**
   * The transaction's body: the batch's turn and its writes ahead unless done already (writeAlone), else, after the
   * earlier batches' writes, the writes, then the signal that only the COMMIT is left.
   */
  const thenWritten = (write: (t: Tx) => Promise<void>) => async (t: Tx) => {
    if (!started) {
      const ahead = await takeTurn();
      if (ahead && (await writeAhead(t, ahead))) {
        pipe.onWritten?.();
        return;
      }
    }
    await pipe.after;
    await write(t);
    pipe.onWritten?.();
  };

  /**
   * A batch written ahead by its one statement outside any transaction: it commits by itself, one round trip instead
   * of BEGIN, the statement and COMMIT, and its answer comes after its commit. Its result, or null when it was not
   * written (the batch's turn is passed then): the batch goes on in a transaction. PostgreSQL refusing the statement
   * committed nothing; anything else thrown (a lost connection, no answer) is uncertain.
   */
  async function writeAlone(): Promise<BatchResult | null> {
    const ahead = await takeTurn();
    if (!ahead) return null;
    // Counted as a write transaction (operators' metrics) only if it wrote: the tag is read when the task ends.
    const attempt = { name: 'realm-batch', writes: planned.length };
    try {
      const written = await db.task({ tag: attempt }, async (t) => {
        const w = await writeAhead(t, ahead);
        if (!w) attempt.name = 'realm-batch-not-written';
        return w;
      });
      if (!written) return null;
    } catch (err) {
      if (isStatementError(err)) return null;
      for (const { index } of planned) outcomes[index] = failure(err);
      return { outcomes, uncertain: true };
    }
    pipe.onWritten?.();
    return { outcomes, uncertain: false };
  }

  async function commit(write: (t: Tx) => Promise<void>): Promise<BatchResult> {
    try {
      await db.tx({ tag }, thenWritten(write));
    } catch (err) {
      uncertain = isConnectionError(err);
      for (const { index } of planned) outcomes[index] = failure(err);
      return { outcomes, uncertain };
    }
    return { outcomes, uncertain, commitId: tag.commitId };
  }

  // Under load most writes succeed, so a batch is first written without savepoints (a savepoint costs two round
  // trips per command): each kind that writes in bulk in one go, the others one after another. If any write throws,
  // the transaction is rolled back and the batch written again with one savepoint per command, so a refused or
  // failing write does not fail the others; one write needs no savepoint: it failed alone. A write therefore may run
  // twice: it must act on the database only (its effects on memory belong in apply, after the commit). (A COMMIT
  // refused for another reason than the connection, after onWritten, would be written again while the pipeline's next
  // batch writes: no constraint of this schema is deferred, so COMMIT is refused only by a lost connection, which is
  // not retried.)
  // A batch that may write ahead opens no transaction unless it needs one (not through a database whose transactions
  // check something first: Db.transactionsOnly, cluster mode's fencing).
  if (!db.transactionsOnly && aheadKind()) {
    const alone = await writeAlone();
    if (alone) return alone;
  }
  try {
    await db.tx({ tag }, thenWritten(writeOptimistic));
    return { outcomes, uncertain, commitId: tag.commitId };
  } catch (err) {
    if (isConnectionError(err) || planned.length === 1) {
      for (const { index } of planned) outcomes[index] = failure(err);
      return { outcomes, uncertain: isConnectionError(err) };
    }
  }
  const oneBulkRun = planned.every((p) => defOf(p) === defOf(planned[0]!)) && defOf(planned[0]!).writeBatch !== undefined;
  return commit((t) => writeAll(t, !oneBulkRun));
}
