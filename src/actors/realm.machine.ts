// The realm actor: the single writer of one realm. loading → ready (idle ⇄ writing: batches in flight) → stopping → stopped.
//
// Pipelined group commit. Commands wait in the mailbox (RealmHandle's are put there by submit, without an XState event
// each; one PUMP event per turn of the event loop takes them); a batch of them is checked against memory, written in one
// transaction and committed; then, in the order the batches were taken, its commands are applied to memory,
// answered and their events published. Up to `pipelineDepth` batches are in flight at once, each on its own
// connection: as soon as a batch's writes start, the next batch is taken, checked and its transaction opened (BEGIN,
// and in cluster mode the fencing query) while those writes run; its own writes start when the previous batch's are
// done (only its COMMIT, the wait for the WAL flush, left), and PostgreSQL flushes their commits together. So the one
// part of a batch that cannot overlap another's is its writes, but for batches written ahead (below).
//
// What keeps this correct: a batch taken while others are in flight is checked against memory that lacks their
// effects (memory changes only when a batch settles, after its commit), and its writes run in a transaction that
// does not see their uncommitted rows. So a batch joins the pipeline only if every command in it says what it touches
// (CommandDef.touches) and none touches what a command of an in-flight batch does: each commutes with those, so its
// check and write need no effect of them, as if it had come before them (none of them was answered yet). Sends
// touch nothing another such command reads (see sendMessage in realm/messages/send.ts for what a send's write reads
// without waiting for an earlier batch's commit); flag changes touch their user's rows, reactions their message. That
// is the same independence that lets a batch write its commands grouped by kind (realm/write-order.ts). A batch
// holding any other command waits until the pipeline has drained, and nothing is taken before it settles (group
// commit as it was before the pipeline). Commands are taken from the head of the mailbox only, so none overtakes
// another — but for those that say they are answered at once and write nothing and change no memory (typing, presence
// announcements: CommandDef.answeredAtOnce), answered as they arrive (answerAtOnce). Until its writes start, the last batch taken also takes the commands that reach the head of
// the mailbox and touch nothing another in-flight batch does (in a batch of their own they would be written no
// sooner; joinWaitingBatch), checked when its wait ends. A batch's writes wait for every earlier batch's writes to be
// done, or for it to end (BatchPipe.after, chained so that a batch that writes nothing passes its predecessor's wait
// on), so message IDs keep the mailbox order and no earlier batch ever waits for a later one's locks (no deadlock: a
// later batch may wait for an earlier one's writes or commit, never the reverse; what it holds while it waits — an
// open transaction, in cluster mode a FOR SHARE lock on the lease row — blocks no write of an earlier batch). One
// exception, writing ahead (BatchPipe.turn): a batch of sends that need nothing but their insert (CommandDef.writeAhead:
// topics with a committed message, conversations memory knows) takes its message IDs from the realm's block
// (RealmContext.ids, realm/message-ids.ts) once every earlier batch has taken its own (RealmContext.idsDrawn), so IDs
// still follow the mailbox order, and inserts them while the batch before it still writes — once it holds as many
// commands as that one (batches do not shrink for it) and with at most `pipelineWriters` batches writing. Its rows
// are new and it takes no lock an earlier batch may want, so no earlier batch waits for it; a batch that turns out to
// need more (a topic start) has written nothing and waits as above. Outside cluster mode that insert is one statement
// committing by itself, without BEGIN and COMMIT (runBatch's writeAlone).
//
// Failures: a batch that fails or is refused settles alone (its callers get their errors, memory is not touched),
// and the later in-flight batches, independent of it, settle as they committed. A committed command whose apply,
// events or answer throws fails its caller alone and marks memory stale (reloaded as below). A batch whose connection failed
// may have committed unseen (uncertain): its callers get 503, no new batch is taken until the pipeline has drained,
// and the next batch first reloads the working set from the database, alone, so memory agrees with the database
// again before anything is checked against it.
import { assign, fromPromise, setup, type ActorRefFrom } from 'xstate';
import type { EventHub } from '../bus/hub.js';
import type { RealmEvent } from '../bus/events.js';
import { errors, notRun, type ApiError } from '../errors.js';
import type { Db } from '../persistence/db.js';
import { failure, runBatch, type BatchResult } from '../realm/batch.js';
import { touchedBy, type CommandRegistry, type PendingCommand, type RealmBatchObserver } from '../realm/commands.js';
import { MessageIdBlock } from '../realm/message-ids.js';
import { RealmState } from '../realm/state.js';

/** A command refused by a stopping realm actor before any of it ran: safe to send again. */
export function notTaken(): ApiError {
  return notRun('refused', errors.shuttingDown());
}

/** Most commands one transaction carries. */
export const MAX_BATCH = 256;
/** Default of how many batches may be in flight at once (each holds a connection until its COMMIT is answered). */
export const PIPELINE_DEPTH = 4;
/** Default of how many batches may be writing at once (those written ahead: BatchPipe.turn). */
export const PIPELINE_WRITERS = 2;

const settled = Promise.resolve();
const nothing = () => undefined;

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
  /** Most batches writing at once (PIPELINE_WRITERS by default; 1: a batch's writes wait for the previous batch's). */
  pipelineWriters?: number;
  /** How many message IDs the actor reserves at once (MessageIdBlock; ID_BLOCK by default). */
  idBlock?: number;
}

/** A batch taken from the mailbox and not settled yet. */
interface InFlight {
  id: number;
  batch: PendingCommand[];
  /** When it was taken from the mailbox (performance.now(), ms). */
  startedAt: number;
  /**
   * What its commands touch (CommandDef.touches) when every one of them says: later batches touching none of it may be
   * taken before it settles. Null when one cannot say: nothing is taken before it settles.
   */
  touched: Set<string> | null;
  /** Its writes have started (or it ended): the next batch may be taken. */
  writing: boolean;
  /**
   * How many commands it holds before it may write ahead of the batch before it (that one's size: batches do not
   * shrink for writing ahead), and what tells it so (BatchPipe.turn).
   */
  needed: number;
  enough: () => void;
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
  /**
   * The mailbox: commands waiting for the next transaction. Mutated in place; the reference never changes. submit
   * fills it directly, without an event per command.
   */
  pending: PendingCommand[];
  /** A PUMP is scheduled for the end of this turn of the event loop (submit). Mutated in place. */
  pumpScheduled: { yes: boolean };
  /** The batches in flight, in the order they were taken (and settle). Mutated in place. */
  inFlight: InFlight[];
  /**
   * Of the last pipelineWriters batches taken, each one's settling once it has done its writes or ended, and every
   * batch before it. The last is the next batch's gate (BatchPipe.after); the first, when there are that many, bounds
   * its turn (BatchPipe.turn).
   */
  writesDone: Promise<void>[];
  /** Settles once the last batch taken has taken its message IDs, done its writes or ended, and every batch before it. */
  idsDrawn: Promise<void>;
  /** The realm's block of message IDs (BatchPipe.ids). */
  ids: MessageIdBlock;
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
  | { type: 'PUMP' }
  | { type: 'STOP' }
  | { type: 'BATCH.DONE'; id: number; result: BatchResult | { error: unknown } };

/** What a batch in flight needs of the realm actor: whether it still runs, and where its end goes (BATCH.DONE). */
interface RealmSelf {
  send(event: RealmMachineEvent): void;
  getSnapshot(): { status: string };
}

/** How a batch taken by pump runs in the pipeline (startBatch); the rest it takes from the realm's context. */
interface BatchInput {
  /** Reload the working set first (see RealmContext.stale). */
  reload: boolean;
  /** Settles once the earlier batches' writes are done or they ended (BatchPipe.after). */
  after: Promise<void>;
  /** Settles once the batch may write ahead (BatchPipe.turn). */
  turn: Promise<void>;
  /**
   * Tell the later batches that this one has taken its message IDs, and done its writes (RealmContext.idsDrawn,
   * writesDone); called by the batch itself, so a stopped actor leaves no batch waiting.
   */
  drew: () => void;
  wrote: () => void;
}

/**
 * The next batch to take from the head of the mailbox now, with what it touches (null: one of its commands cannot
 * say), or null when it must wait. A batch is the run of batchable commands at the head (or one command that is
 * not); while others are in flight it is taken only if every command of it says what it touches and touches nothing
 * an in-flight batch does, else it waits for the pipeline to drain and goes whole (not split in two).
 */
function nextBatch(context: RealmContext): { batch: PendingCommand[]; touched: Set<string> | null } | null {
  const { pending, inFlight, commands: registry } = context;
  if (pending.length === 0) return null;
  let n = 1;
  if (registry[pending[0]!.kind]?.batchable) {
    while (n < pending.length && n < MAX_BATCH && registry[pending[n]!.kind]?.batchable) n++;
  }
  const joining = inFlight.length > 0;
  if (joining) {
    if (context.stale || inFlight.length >= (context.pipelineDepth ?? PIPELINE_DEPTH)) return null;
    if (!inFlight.at(-1)!.writing || inFlight.some((b) => b.touched === null)) return null;
  }
  const busy = (k: string) => inFlight.some((b) => b.touched!.has(k));
  let touched: Set<string> | null = new Set();
  for (let i = 0; i < n; i++) {
    const keys = touchedBy(registry, context.state!, pending[i]!);
    if (joining && (!keys || keys.some(busy))) return null;
    if (!keys) touched = null;
    else if (touched) for (const k of keys) touched.add(k);
  }
  return { batch: pending.splice(0, n), touched };
}

/**
 * A command that says it is answered at once (CommandDef.answeredAtOnce: typing, presence announcements), and writes
 * nothing and changes no memory: checked and its events published as it reaches the actor, ahead of the batches in
 * the mailbox and in flight, unless memory may lag the database (stale). It is as if it had come before them: none of
 * them was answered yet, and memory holds every batch that was.
 */
function answersAtOnce(context: RealmContext, cmd: PendingCommand): boolean {
  const def = context.commands[cmd.kind];
  return def?.answeredAtOnce === true && !def.write && !def.apply && !context.stale;
}

function answerAtOnce(context: RealmContext, cmd: PendingCommand): void {
  const def = context.commands[cmd.kind]!;
  const state = context.state!;
  context.observer?.waited(cmd.kind, 0);
  let answer: unknown;
  let events: RealmEvent[];
  try {
    const plan = def.check(state, cmd.input);
    events = def.events ? def.events(state, plan) : [];
    answer = def.answer ? def.answer(plan) : plan;
  } catch (err) {
    const outcome = failure(err);
    cmd.reject(outcome.ok ? err : outcome.error);
    return;
  }
  context.hub.publishEvents(context.realmId, events);
  if (events.length > 0) context.replicate?.(context.realmId, [], events, null);
  cmd.resolve(answer);
}

/**
 * Commands at the head of the mailbox join the last batch taken while it waits for the previous batch's writes (its
 * own writes not started, every command of it saying what it touches, the working set not stale) when each says what
 * it touches and touches nothing another in-flight batch does (as nextBatch asks of a batch joining the pipeline):
 * alone they would be written no sooner, and one transaction for more commands costs less per command. runBatch
 * checks them when the wait ends, and writes them in its order (realm/write-order.ts).
 */
function joinWaitingBatch(context: RealmContext): void {
  const last = context.inFlight.at(-1);
  if (!last || last.touched === null || last.writing || last.result || context.stale) return;
  const { pending, commands: registry, observer, inFlight } = context;
  const busy = (k: string) => inFlight.some((b) => b !== last && (b.touched?.has(k) ?? true));
  const touched = last.touched;
  const now = performance.now();
  while (pending.length > 0 && last.batch.length < MAX_BATCH && registry[pending[0]!.kind]?.batchable) {
    const keys = touchedBy(registry, context.state!, pending[0]!);
    if (!keys || keys.some(busy)) return;
    const cmd = pending.shift()!;
    for (const k of keys) touched.add(k);
    observer?.waited(cmd.kind, (now - (cmd.queuedAt ?? now)) / 1000);
    last.batch.push(cmd);
    if (last.batch.length >= last.needed) last.enough();
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

/**
 * Adds commands to the batch waiting to write (joinWaitingBatch), else takes the next batch when the pipeline has room
 * for it (see nextBatch) and starts it.
 */
function pump(context: RealmContext, self: RealmSelf): void {
  joinWaitingBatch(context);
  const next = nextBatch(context);
  if (!next) return;
  const batch = next.batch;
  const now = performance.now();
  const observer = context.observer;
  if (observer) for (const cmd of batch) observer.waited(cmd.kind, (now - (cmd.queuedAt ?? now)) / 1000);
  const reload = context.stale;
  context.stale = false;
  const id = context.nextBatchId++;
  const touched = reload ? null : next.touched;
  const writers = context.pipelineWriters ?? PIPELINE_WRITERS;
  const done = context.writesDone;
  const after = done.at(-1) ?? settled;
  const needed = Math.min(context.inFlight.at(-1)?.batch.length ?? 0, MAX_BATCH);
  let enough!: () => void;
  const large = new Promise<void>((r) => (enough = r));
  if (batch.length >= needed) enough();
  const turn = Promise.all([
    context.idsDrawn,
    done.length >= writers ? done[done.length - writers] : settled,
    Promise.race([after, large]),
  ]).then(nothing);
  let drew!: () => void;
  let wrote!: () => void;
  const drawn = new Promise<void>((r) => (drew = r));
  const written = new Promise<void>((r) => (wrote = r));
  context.idsDrawn = Promise.all([context.idsDrawn, drawn]).then(nothing);
  context.writesDone = [...done, Promise.all([after, written]).then(nothing)].slice(-writers);
  const b: InFlight = { id, batch, startedAt: now, touched, writing: false, needed, enough, written: false, result: null };
  context.inFlight.push(b);
  startBatch(self, context, b, { reload, after, turn, drew, wrote });
}

/**
 * Runs one batch (reloading the working set first when asked) as a plain promise rather than a child actor: its writes
 * starting and ending mark it in the pipeline and take the next batch at once (pump), without an event each; its end
 * is the one event, BATCH.DONE, which settles the pipeline in order. Whatever it did (it may have written nothing), it
 * tells the later batches so (RealmContext.writesDone and idsDrawn chain them), also once the actor has stopped, which
 * then takes nothing more.
 */
function startBatch(self: RealmSelf, context: RealmContext, b: InFlight, input: BatchInput): void {
  const { after, turn, drew, wrote } = input;
  const { id, batch } = b;
  const { db, realmId, commands, ids } = context;
  const state = context.state!;
  const active = () => self.getSnapshot().status === 'active';
  const run = async (): Promise<BatchResult> => {
    if (input.reload) {
      try {
        state.replaceFrom(await RealmState.loadFresh(db, realmId));
      } catch (err) {
        return { outcomes: batch.map(() => failure(err)), uncertain: true };
      }
    }
    return runBatch(db, state, commands, batch, {
      after,
      turn,
      ids,
      onWriting: () => {
        b.writing = true;
        if (active()) pump(context, self);
      },
      onIdsDrawn: drew,
      onWritten: () => {
        drew();
        wrote();
        b.writing = b.written = true;
        if (active()) pump(context, self);
      },
    });
  };
  const ended = () => {
    drew();
    wrote();
  };
  run().then(
    (result) => {
      ended();
      if (active()) self.send({ type: 'BATCH.DONE', id, result });
    },
    (error: unknown) => {
      ended();
      if (active()) self.send({ type: 'BATCH.DONE', id, result: { error } });
    },
  );
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
    /** Records a batch's result, then settles every batch at the head of the pipeline that has one, in order. */
    settleInOrder: ({ context, event }) => {
      if (event.type !== 'BATCH.DONE') return;
      const done = context.inFlight.find((x) => x.id === event.id);
      if (!done) return;
      done.result = event.result;
      done.writing = done.written = true;
      // Commands that joined the batch after it ended without writing were not taken: back to the head of the mailbox.
      const taken = 'error' in event.result ? done.batch.length : event.result.outcomes.length;
      if (taken < done.batch.length) context.pending.unshift(...done.batch.splice(taken));
      while (context.inFlight[0]?.result) settle(context, context.inFlight.shift()!);
    },
    pump: ({ context, self }) => pump(context, self),
  },
}).createMachine({
  id: 'realm',
  context: ({ input }) => ({
    ...input,
    state: null,
    pending: [],
    pumpScheduled: { yes: false },
    inFlight: [],
    writesDone: [],
    idsDrawn: settled,
    ids: new MessageIdBlock(input.idBlock),
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
        COMMAND: [
          { guard: ({ context }) => context.stopRequested, actions: 'refuse' },
          { guard: ({ context, event }) => answersAtOnce(context, event.command), actions: ({ context, event }) => answerAtOnce(context, event.command) },
          { actions: ['enqueue', 'pump'] },
        ],
        PUMP: { actions: 'pump' },
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

/**
 * Hands a command to the realm actor: into its mailbox at once, as the COMMAND event's enqueue would, but without an
 * event (an XState macrostep) per command. It joins the batch waiting to write at once (joinWaitingBatch); taking a
 * new batch waits for one pump per turn of the event loop (setImmediate: after the I/O callbacks of the turn, so the
 * commands that arrived in it go together; a direct call while batches are in flight, else a PUMP event), or comes at
 * once (a PUMP event) when no batch is in flight. A command answered at once (answersAtOnce), or sent while the actor
 * is neither loading nor ready or after a stop, goes as a COMMAND event, to the actor's own rules (one sent to a
 * stopped actor is refused here). In the mailbox before any STOP the actor receives after it, a command is drained,
 * never refused, by that stop.
 */
export function submit(ref: ActorRefFrom<typeof realmMachine>, command: PendingCommand): void {
  const snapshot = ref.getSnapshot();
  if (snapshot.status !== 'active') return command.reject(notTaken());
  const context = snapshot.context;
  const ready = snapshot.matches('ready');
  if (context.stopRequested || !(ready || snapshot.matches('loading')) || (ready && answersAtOnce(context, command))) {
    ref.send({ type: 'COMMAND', command });
    return;
  }
  if (context.observer) command.queuedAt = performance.now();
  context.pending.push(command);
  // Loading: entering ready takes the mailbox.
  if (!ready) return;
  // Joins the batch waiting to write at once, as the COMMAND event's pump would: by the end of the turn its writes
  // may have started.
  joinWaitingBatch(context);
  if (context.pending.length === 0) return;
  if (context.inFlight.length === 0) ref.send({ type: 'PUMP' });
  else if (!context.pumpScheduled.yes) {
    context.pumpScheduled.yes = true;
    setImmediate(() => {
      context.pumpScheduled.yes = false;
      const later = ref.getSnapshot();
      if (later.status !== 'active') return;
      // While batches are in flight and no stop waits for the drain, taking the next batch changes nothing the machine
      // shows (it stays ready.writing, as the pumps at a batch's write start and end leave it): no event, no macrostep.
      if (later.matches({ ready: 'writing' }) && !later.context.stopRequested) pump(later.context, ref);
      else ref.send({ type: 'PUMP' });
    });
  }
}
