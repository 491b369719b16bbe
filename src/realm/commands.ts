// Realm commands: the writes a realm actor performs. Each is checked against memory, written in a
// transaction, applied to memory only after the commit, and only then answered and published.
import type { RealmEvent } from '../bus/events.js';
import type { Tx } from '../persistence/db.js';
import { RealmState } from './state.js';

/**
 * A realm command: `I` is its input, `P` its plan, `R` its result (the write's, or the plan of a command without a
 * write), `A` what the caller gets (the result unless `answer` says otherwise). Inputs and answers are plain data
 * (objects, arrays, strings, numbers, booleans, null, dates): they are the command's messages across a process
 * boundary (see ./command-check.ts).
 */
export interface CommandDef<I = any, P = any, R = any, A = R> {
  /** Batchable commands share a transaction with others (group commit); the rest run alone. */
  batchable?: boolean;
  /**
   * What a batchable command's write reaches that another command's might too, as keys (see Touched), computed from
   * its input against the working set; undefined when it cannot say (the default). A command that says commutes with
   * every other that says and touches none of its keys: written before or after it, each gets the same result and
   * leaves the same rows. So the batch may write it with the others of its kind wherever it stands (batch.ts, write
   * order), and the realm actor may take its batch while earlier batches still commit (realm.machine.ts, the
   * pipeline), for its check and write need no effect of such a command either: its check reads nothing those
   * change in memory, and its write reads none of their rows.
   */
  touches?(state: RealmState, input: I): Touched | undefined;
  /**
   * CPU-heavy work done before the command enters the mailbox, off the actor (Markdown rendering on the worker
   * pool): its result is the input `check` gets; the input itself, synchronously, when there is nothing to do. It
   * reads the working set but never changes it; it may reject with ApiError to refuse. Commands of one `orderKey`
   * enter the mailbox in the order they were dispatched (a user's sends stay in order), whatever their
   * preparations take.
   */
  prepare?(state: RealmState, input: I): I | Promise<I>;
  /** Whose order prepared commands keep (default: the command's kind). */
  orderKey?(input: I): string;
  /** Validates against the working set and plans the write; throws ApiError to refuse. */
  check(state: RealmState, input: I): P;
  /**
   * A command that only publishes (no write, no apply) and whose check and events need no earlier command's effect
   * (typing, presence announcements): checked, published and answered as it reaches the realm actor, ahead of the
   * commands in the mailbox and the batches in flight (realm.machine.ts), as if it had come before them. Without it,
   * a command that only publishes keeps the mailbox order, after the writes dispatched before it.
   */
  answeredAtOnce?: boolean;
  /** Absent for commands that only publish (typing, presence): they never open a transaction; the plan is the result. */
  write?(t: Tx, plan: P, state: RealmState): Promise<R>;
  /**
   * Optional group-commit fast path: writes several plans of this kind in one go (multi-row statements) and
   * gives each plan its outcome, in order, the same as write() one after another would; a refused plan gets its
   * ApiError without failing the others (and writes nothing). It runs in a savepoint: if it throws, the batch falls
   * back to write() with one savepoint per command.
   */
  writeBatch?(t: Tx, plans: P[], state: RealmState): Promise<Outcome<R>[]>;
  /**
   * Optional, beside writeBatch, for a kind whose write inserts one message: the plan given that message's ID, taken
   * by the batch before its writes (realm/batch.ts) in the mailbox's order; its write then inserts the message with
   * it (null: the insert draws one from the sequence).
   */
  withMessageId?(plan: P, id: number | null): P;
  /**
   * Optional, beside withMessageId: when memory shows that the plans need nothing of earlier batches' writes and lock
   * nothing those may (sends to topics that have messages, in conversations memory knows), how to write them while
   * those still run, given their message IDs (ascending); null when they need more. The writer inserts all of them or
   * nothing, and tells which: the outcomes writeBatch would give, or why nothing was written — 'topic-start' (a
   * message would start its topic: the batch waits for the earlier writes and goes the way of writeBatch, with the
   * same IDs) or 'ids-below' (the realm holds a message with a higher ID: the IDs are given up).
   */
  writeAhead?(plans: P[], state: RealmState): AheadWriter<R> | null;
  /** Updates memory after the commit. */
  apply?(state: RealmState, result: R): void;
  /** The events this command's committed result produces. */
  events?(state: RealmState, result: R): RealmEvent[];
  /** What the caller gets, when the result is not plain data (default: the result itself). */
  answer?(result: R): A;
}

/** See CommandDef.writeAhead. */
export type AheadWriter<R> = (t: Tx, ids: readonly number[]) => Promise<Outcome<R>[] | 'topic-start' | 'ids-below'>;

/**
 * Keys of what a write reads or changes in the database, of messages the working set knows (IDs up to
 * state.messages.lastId): `m:<message>` its reactions and who holds a row of it (a write adding a row of a message
 * says it), `r:<user>:<message>` one user's row of it (its flags, whether it exists). Two commands conflict when they
 * share a key. Empty: it touches nothing another command reads (a send: its rows are new messages').
 */
export type Touched = readonly string[];

/**
 * Most keys one command may say it touches: a command touching more (a flag change of thousands of messages) is taken
 * as one that cannot say (it goes alone, after the batches in flight), so the sets the realm actor and a batch keep of
 * them stay small whatever a request carries.
 */
export const MAX_TOUCHED_KEYS = 1000;

/**
 * What a command touches (CommandDef.touches), if it is batchable and says with at most MAX_TOUCHED_KEYS keys; null
 * otherwise. Worked out once per command and kept on it: the realm actor asks when it takes or joins a batch, the
 * batch when it orders its writes. (Memory only grows between the two asks, so the first answer stays safe: a key
 * names a message the working set knew then.)
 */
export function touchedBy(registry: CommandRegistry, state: RealmState, cmd: PendingCommand): Touched | null {
  if (cmd.touched === undefined) {
    const def = registry[cmd.kind];
    const keys = def?.batchable ? def.touches?.(state, cmd.input) : undefined;
    cmd.touched = keys && keys.length <= MAX_TOUCHED_KEYS ? keys : null;
  }
  return cmd.touched;
}

export const messageKey = (messageId: number): string => `m:${messageId}`;
export const rowKey = (userId: number, messageId: number): string => `r:${userId}:${messageId}`;

/** Prepared commands of one user enter the realm actor in the order the user dispatched them. */
export const byUser = (userId: number): string => `user:${userId}`;

/** A command's result after the batch's commit: its value, or why it was refused or failed. */
export type Outcome<R = unknown> = { ok: true; value: R } | { ok: false; error: unknown };

/** An outcome's value, or its error thrown: write() as the writeBatch of one plan. */
export function valueOfOutcome<R>(outcome: Outcome<R> | undefined): R {
  if (!outcome) throw new Error('no outcome');
  if (!outcome.ok) throw outcome.error;
  return outcome.value;
}

/**
 * What the machinery that runs commands (the realm actor, the batch) needs of a registry. The registry itself is
 * declared with `satisfies` (src/realm/registry.ts), so each command keeps its own input and result types.
 */
export type CommandRegistry = Record<string, CommandDef>;

/** The input of command `K` of registry `C`. */
export type InputOf<C extends CommandRegistry, K extends keyof C> = C[K] extends CommandDef<infer I, any, any> ? I : never;

/** The result the caller of command `K` of registry `C` gets. */
export type ResultOf<C extends CommandRegistry, K extends keyof C> = C[K] extends CommandDef<any, any, any, infer A> ? A : never;

/** A command in a realm actor's mailbox, with the caller's continuation. */
export interface PendingCommand {
  kind: string;
  input: unknown;
  resolve(result: unknown): void;
  reject(err: unknown): void;
  /** When the realm actor's mailbox received it (performance.now(), ms); set by the actor. */
  queuedAt?: number;
  /** What it touches (null: it cannot say), worked out once by touchedBy. */
  touched?: Touched | null;
}

/** What a realm actor reports of each batch (operators' metrics); called synchronously, so it must be cheap. */
export interface RealmBatchObserver {
  /** A batch starts: each command's time in the mailbox. */
  waited(kind: string, seconds: number): void;
  /** A batch settled: from its start to its callers answered; `kind` is the commands' kind, or `mixed`. */
  settled(kind: string, seconds: number): void;
}

/** Replaces the working set after a change made outside the server (the admin CLI). */
export const reloadCommand: CommandDef<void, void, RealmState, void> = {
  check() {},
  write: (t, _plan, state) => RealmState.load(t, state.realm.id),
  apply: (state, fresh) => state.replaceFrom(fresh),
  answer: () => undefined,
};

export const coreCommands = {
  'realm.reload': reloadCommand,
} satisfies CommandRegistry;
