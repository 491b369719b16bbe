// The realm actor: the single writer of one realm. loading → ready (idle ⇄ writing: batches in flight) → stopping → stopped.
//
// Pipelined group commit. Commands wait in the mailbox; a batch of them is checked against memory, written in one
// transaction and committed; then, in the order the batches were taken, its commands are applied to memory,
// answered and their events published. Up to `pipelineDepth` batches are in flight at once, each on its own
// connection: as soon as a batch's writes start, the next batch is taken, checked and its transaction opened (BEGIN,
// and in cluster mode the fencing query) while those writes run; its own writes start when the previous batch's are
// done (only its COMMIT, the wait for the WAL flush, left), and PostgreSQL flushes their commits together. So the one
// part of a batch that cannot overlap another's is its writes.
//
// What keeps this correct: a batch taken while others are in flight is checked against memory that lacks their
// effects (memory changes only when a batch settles, after its commit), and its writes run in a transaction that
// does not see their uncommitted rows. So a batch joins the pipeline only if every command in it is of a
// `pipelined` kind (see CommandDef): one whose check and write need no effect of an earlier batchable command that
// may not have committed (a send: nothing a send checks is changed by another send; its writes insert new rows,
// and where one needs an earlier batch's row — the same new direct conversation, the same new topic — it waits
// for that commit; see sendMessage in realm/messages/send.ts for what it reads without waiting). That is the same
// independence batchable commands already have inside one batch, where all are checked before any is applied. A
// batch holding any other command waits until the pipeline has drained, and nothing is taken before it settles
// (group commit as it was before the pipeline). Commands are taken from the head of the mailbox only, so none
// overtakes another; until its writes start, the last batch taken also takes the pipelined commands that reach the
// head of the mailbox (in a batch of their own they would be written no sooner), checked when its wait ends.
// Writes of consecutive batches never overlap (a batch's first write waits for the previous batch's writes to be
// done, or for it to end: BatchPipe.after, chained so that a batch that writes nothing passes its predecessor's wait
// on), so message IDs keep the mailbox order and no earlier batch ever waits for a later one's
// locks (no deadlock: a later batch may wait for an earlier one's writes or commit, never the reverse; what it holds
// while it waits — an open transaction, in cluster mode a FOR SHARE lock on the lease row — blocks no write of an
// earlier batch).
//
// Failures: a batch that fails or is refused settles alone (its callers get their errors, memory is not touched),
// and the later in-flight batches, independent of it, settle as they committed. A committed command whose apply,
// events or answer throws fails its caller alone and marks memory stale (reloaded as below). A batch whose connection failed
// may have committed unseen (uncertain): its callers get 503, no new batch is taken until the pipeline has drained,
// and the next batch first reloads the working set from the database, alone, so memory agrees with the database
// again before anything is checked against it.
import { assign, enqueueActions, fromCallback, fromPromise, setup } from 'xstate';
import type { EventHub } from '../bus/hub.js';
import type { RealmEvent } from '../bus/events.js';
import { errors, notRun, type ApiError } from '../errors.js';
import type { Db } from '../persistence/db.js';
import { failure, runBatch, type BatchResult } from '../realm/batch.js';
import type { CommandRegistry, PendingCommand, RealmBatchObserver } from '../realm/commands.js';
import { RealmState } from '../realm/state.js';

/** A command refused by a stopping realm actor before any of it ran: safe to send again. */
export function notTaken(): ApiError {
  return notRun('refused', errors.shuttingDown());
}

/** Most commands one transaction carries. */
export const MAX_BATCH = 256;
/** Default of how many batches may be in flight at once (each holds a connection until its COMMIT is answered). */
export const PIPELINE_DEPTH = 4;

export interface RealmInput {
  realmId: number;
  db: Db;
  hub: EventHub;
  commands: CommandRegistry;
  /** Mailbox waits and batch durations (operators' metrics). */
  observer?: RealmBatchObserver;
  /** ROOT_DOMAIN, handed to the working set (RealmState.rootDomain). */
  rootDomain?: string;
  /** Cluster mode: each committed batch's applied results and events, for the other processes (src/cluster/). */
  replicate?: BatchReplicator;
  /**
   * Cluster mode: a working set just loaded, before the actor uses it (the batches committed meanwhile that its
   * snapshot does not hold are applied to it).
   */
  loaded?: (realmId: number, state: RealmState) => void;
  /** Most batches in flight at once (PIPELINE_DEPTH by default; 1 commits one batch at a time). */
  pipelineDepth?: number;
}

/** A batch taken from the mailbox and not settled yet. */
interface InFlight {
  id: number;
  batch: PendingCommand[];
  /** When it was taken from the mailbox (performance.now(), ms). */
  startedAt: number;
  /** Every command in it is pipelined: later batches may be taken before it settles. */
  pipelined: boolean;
  /** Its writes have started (or it ended): the next batch may be taken. */
  writing: boolean;
  /** Its writes are done (or it ended). */
  written: boolean;
  /** Its commit's answers, or what the run threw; null while it runs. */
  result: BatchResult | { error: unknown } | null;
}

/**
 * What a committed batch changed: the results memory applied, in order, the events it published, and its
 * transaction's ID (null when the batch wrote nothing, or the database did not tell it).
 */
export type BatchReplicator = (realmId: number, applied: { kind: string; value: unknown }[], events: RealmEvent[], commitId: string | null) => void;

export interface RealmContext extends RealmInput {
  state: RealmState | null;
  /** The mailbox: commands waiting for the next transaction. Mutated in place; the reference never changes. */
  pending: PendingCommand[];
  /** The batches in flight, in the order they were taken (and settle). Mutated in place. */
  inFlight: InFlight[];
  /** Settles once the last batch taken has done its writes or ended (and every batch before it): the next one's gate. */
  lastWrites: Promise<void>;
  nextBatchId: number;
  loadError: unknown;
  /** Batches settled. */
  batches: number;
  stopRequested: boolean;
  /**
   * A connection failed under a batch: its commit may have happened although its callers were answered 503, so
   * memory may lag the database. Once the pipeline has drained, the next batch first reloads the working set.
   */
  stale: boolean;
}

export type RealmMachineEvent =
  | { type: 'COMMAND'; command: PendingCommand }
  | { type: 'STOP' }
  | { type: 'BATCH.WRITING'; id: number }
  | { type: 'BATCH.WRITTEN'; id: number }
  | { type: 'BATCH.DONE'; id: number; result: BatchResult | { error: unknown } };

interface BatchInput {
  id: number;
  db: Db;
  realmId: number;
  state: RealmState;
  commands: CommandRegistry;
  batch: PendingCommand[];
  /** Reload the working set first (see RealmContext.stale). */
  reload: boolean;
  /** Settles once the previous batch's writes are done or it ended (BatchPipe.after). */
  after: Promise<void>;
  /** Opens the next batch's gate (RealmContext.lastWrites); called by the batch itself, so a stopped actor leaves no batch waiting at it. */
  release: () => void;
}

const isPipelined = (registry: CommandRegistry, cmd: PendingCommand) => {
  const def = registry[cmd.kind];
  return def?.batchable === true && def.pipelined === true;
};

/**
 * The next batch to take from the head of the mailbox now, or null when it must wait. A batch is the run of
 * batchable commands at the head (or one command that is not); while others are in flight it is taken only if
 * every command of it is pipelined, else it waits for the pipeline to drain and goes whole (not split in two).
 */
function nextBatch(context: RealmContext): PendingCommand[] | null {
  const { pending, inFlight, commands: registry } = context;
  if (pending.length === 0) return null;
  let n = 1;
  if (registry[pending[0]!.kind]?.batchable) {
    while (n < pending.length && n < MAX_BATCH && registry[pending[n]!.kind]?.batchable) n++;
  }
  if (inFlight.length > 0) {
    if (context.stale || inFlight.length >= (context.pipelineDepth ?? PIPELINE_DEPTH)) return null;
    if (!inFlight.at(-1)!.writing || inFlight.some((b) => !b.pipelined)) return null;
    for (let i = 0; i < n; i++) if (!isPipelined(registry, pending[i]!)) return null;
  }
  return pending.splice(0, n);
}

/**
 * Commands at the head of the mailbox join the last batch taken while it waits for the previous batch's writes
 * (pipelined, its own writes not started, the working set not stale): alone they would be written no sooner, and
 * one transaction for more commands costs less per command. runBatch checks them when the wait ends.
 */
function joinWaitingBatch(context: RealmContext): void {
  const last = context.inFlight.at(-1);
  if (!last || !last.pipelined || last.writing || last.result || context.stale) return;
  const { pending, commands: registry, observer } = context;
  let n = 0;
  while (n < pending.length && last.batch.length + n < MAX_BATCH && isPipelined(registry, pending[n]!)) n++;
  const now = performance.now();
  for (const cmd of pending.splice(0, n)) {
    observer?.waited(cmd.kind, (now - (cmd.queuedAt ?? now)) / 1000);
    last.batch.push(cmd);
  }
}

function observeSettled(observer: RealmBatchObserver | undefined, b: InFlight): void {
  if (!observer || b.batch.length === 0) return;
  const kind = b.batch[0]!.kind;
  const same = b.batch.every((c) => c.kind === kind);
  observer.settled(same ? kind : 'mixed', (performance.now() - b.startedAt) / 1000);
}

/** After its commit (and every earlier batch's settling): update memory, answer the callers, publish the events. */
function settle(context: RealmContext, b: InFlight): void {
  const result = b.result!;
  if ('error' in result) {
    for (const cmd of b.batch) cmd.reject(result.error);
    context.stale = true;
    observeSettled(context.observer, b);
    return;
  }
  const state = context.state!;
  const events: RealmEvent[] = [];
  const applied: { kind: string; value: unknown }[] = [];
  b.batch.forEach((cmd, i) => {
    const outcome = result.outcomes[i]!;
    if (!outcome.ok) {
      cmd.reject(outcome.error);
      return;
    }
    const def = context.commands[cmd.kind]!;
    let answer: unknown;
    try {
      if (def.apply) {
        def.apply(state, outcome.value);
        applied.push({ kind: cmd.kind, value: outcome.value });
      }
      if (def.events) events.push(...def.events(state, outcome.value));
      answer = def.answer ? def.answer(outcome.value) : outcome.value;
    } catch (err) {
      // Committed, but memory may hold part of it: the caller gets the error (a 500), the others of the pipeline
      // still settle, and the working set is reloaded before the next batch is checked (as after an uncertain commit).
      cmd.reject(err);
      context.stale = true;
      return;
    }
    cmd.resolve(answer);
  });
  context.hub.publishEvents(context.realmId, events);
  // Cluster mode: batches settle in commit order, so the other processes receive them in that order too.
  if (applied.length > 0 || events.length > 0) context.replicate?.(context.realmId, applied, events, result.commitId ?? null);
  observeSettled(context.observer, b);
  context.batches++;
  if (result.uncertain) context.stale = true;
}

export const realmMachine = setup({
  types: {
    context: {} as RealmContext,
    input: {} as RealmInput,
    events: {} as RealmMachineEvent,
  },
  actors: {
    load: fromPromise<RealmState, Pick<RealmInput, 'db' | 'realmId' | 'rootDomain' | 'loaded'>>(async ({ input }) => {
      const state = await RealmState.loadFresh(input.db, input.realmId);
      if (input.rootDomain !== undefined) state.rootDomain = input.rootDomain;
      state.reads = input.db;
      input.loaded?.(input.realmId, state);
      return state;
    }),
    /** Runs one batch (reloading the working set first when asked) and reports its writes started and done, and its result. */
    batch: fromCallback<RealmMachineEvent, BatchInput>(({ sendBack, input }) => {
      const { id, after, release } = input;
      const run = async (): Promise<BatchResult> => {
        if (input.reload) {
          try {
            input.state.replaceFrom(await RealmState.loadFresh(input.db, input.realmId));
          } catch (err) {
            return { outcomes: input.batch.map(() => failure(err)), uncertain: true };
          }
        }
        return runBatch(input.db, input.state, input.commands, input.batch, {
          after,
          onWriting: () => sendBack({ type: 'BATCH.WRITING', id }),
          onWritten: () => {
            release();
            sendBack({ type: 'BATCH.WRITTEN', id });
          },
        });
      };
      // Whatever it did, the next batch's writes wait for the previous one's too (this one may have written nothing).
      const ended = () => void after.then(release);
      run().then(
        (result) => {
          ended();
          sendBack({ type: 'BATCH.DONE', id, result });
        },
        (error: unknown) => {
          ended();
          sendBack({ type: 'BATCH.DONE', id, result: { error } });
        },
      );
    }),
  },
  guards: {
    drained: ({ context }) => context.stopRequested && context.pending.length === 0 && context.inFlight.length === 0,
  },
  actions: {
    enqueue: ({ context, event }) => {
      if (event.type !== 'COMMAND') return;
      if (context.observer) event.command.queuedAt = performance.now();
      context.pending.push(event.command);
    },
    refuse: ({ event }) => {
      if (event.type === 'COMMAND') event.command.reject(notTaken());
    },
    refuseLoadFailed: ({ event }) => {
      if (event.type === 'COMMAND') event.command.reject(errors.unavailable('Realm could not be loaded'));
    },
    rejectPending: ({ context }) => {
      for (const c of context.pending.splice(0)) c.reject(notTaken());
    },
    rejectPendingLoadFailed: ({ context }) => {
      for (const c of context.pending.splice(0)) c.reject(errors.unavailable('Realm could not be loaded'));
    },
    writing: ({ context, event }) => {
      if (event.type !== 'BATCH.WRITING') return;
      const b = context.inFlight.find((x) => x.id === event.id);
      if (b) b.writing = true;
    },
    written: ({ context, event }) => {
      if (event.type !== 'BATCH.WRITTEN') return;
      const b = context.inFlight.find((x) => x.id === event.id);
      if (b) b.writing = b.written = true;
    },
    /** Records a batch's result, then settles every batch at the head of the pipeline that has one, in order. */
    settleInOrder: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'BATCH.DONE') return;
      const done = context.inFlight.find((x) => x.id === event.id);
      if (!done) return;
      done.result = event.result;
      done.writing = done.written = true;
      // Commands that joined the batch after it ended without writing were not taken: back to the head of the mailbox.
      const taken = 'error' in event.result ? done.batch.length : event.result.outcomes.length;
      if (taken < done.batch.length) context.pending.unshift(...done.batch.splice(taken));
      while (context.inFlight[0]?.result) {
        const b = context.inFlight.shift()!;
        settle(context, b);
        enqueue.stopChild(`batch:${b.id}`);
      }
    }),
    /** Adds commands to the batch waiting to write (joinWaitingBatch), else takes the next batch when the pipeline has room for it (see nextBatch) and starts it. */
    pump: enqueueActions(({ context, enqueue }) => {
      joinWaitingBatch(context);
      const batch = nextBatch(context);
      if (!batch) return;
      const now = performance.now();
      const observer = context.observer;
      if (observer) for (const cmd of batch) observer.waited(cmd.kind, (now - (cmd.queuedAt ?? now)) / 1000);
      const reload = context.stale;
      context.stale = false;
      const id = context.nextBatchId++;
      const pipelined = !reload && batch.every((cmd) => isPipelined(context.commands, cmd));
      const after = context.lastWrites;
      let release!: () => void;
      context.lastWrites = new Promise<void>((r) => (release = r));
      context.inFlight.push({ id, batch, startedAt: now, pipelined, writing: false, written: false, result: null });
      enqueue.spawnChild('batch', {
        id: `batch:${id}`,
        input: { id, db: context.db, realmId: context.realmId, state: context.state!, commands: context.commands, batch, reload, after, release },
      });
    }),
  },
}).createMachine({
  id: 'realm',
  context: ({ input }) => ({
    ...input,
    state: null,
    pending: [],
    inFlight: [],
    lastWrites: Promise.resolve(),
    nextBatchId: 1,
    loadError: null,
    batches: 0,
    stopRequested: false,
    stale: false,
  }),
  initial: 'loading',
  states: {
    loading: {
      on: { COMMAND: { actions: 'enqueue' }, STOP: 'stopping' },
      invoke: {
        src: 'load',
        input: ({ context }) => ({ db: context.db, realmId: context.realmId, rootDomain: context.rootDomain, loaded: context.loaded }),
        onDone: { target: 'ready', actions: assign({ state: ({ event }) => event.output }) },
        onError: { target: 'failed', actions: assign({ loadError: ({ event }) => event.error }) },
      },
    },
    ready: {
      entry: 'pump',
      always: { guard: 'drained', target: 'stopping' },
      // What operators see (actor inspection): writing while any batch is in flight.
      initial: 'idle',
      states: {
        idle: { always: { guard: ({ context }) => context.inFlight.length > 0, target: 'writing' } },
        writing: { always: { guard: ({ context }) => context.inFlight.length === 0, target: 'idle' } },
      },
      on: {
        // Once a stop is asked for, new commands are refused: the drain ends even while callers keep sending.
        COMMAND: [{ guard: ({ context }) => context.stopRequested, actions: 'refuse' }, { actions: ['enqueue', 'pump'] }],
        'BATCH.WRITING': { actions: ['writing', 'pump'] },
        'BATCH.WRITTEN': { actions: ['written', 'pump'] },
        'BATCH.DONE': { actions: ['settleInOrder', 'pump'] },
        // A stop lets the batches in flight finish and drains the mailbox first.
        STOP: { actions: assign({ stopRequested: true }) },
      },
    },
    stopping: {
      entry: 'rejectPending',
      always: 'stopped',
    },
    failed: {
      entry: 'rejectPendingLoadFailed',
      on: { COMMAND: { actions: 'refuseLoadFailed' }, STOP: 'stopped' },
    },
    stopped: {
      type: 'final',
      on: { COMMAND: { actions: 'refuse' } },
    },
  },
});
