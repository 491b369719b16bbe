// The batch loop, the one pattern for long work done in bounded pieces (topic deletion, retention): runs a step (one
// batch, usually one realm-actor command) again and again until it reports nothing more to do (complete) or the time
// budget is spent (incomplete: the caller runs it again later). running → deciding → (running | done); a step that
// fails → failed, with the error in the output. One machine per use, so each kind keeps its own name for operators.
import { assign, fromPromise, setup } from 'xstate';

/** What one step did: how many items it handled, and whether any are left. */
export interface BatchResult {
  count: number;
  more: boolean;
}

export interface BatchLoopInput {
  step: () => Promise<BatchResult>;
  /** The realm the work is in, if one (operators filter by it). */
  realmId?: number;
  /** What the work is about, shown to operators (the step itself is a closure). */
  about?: Record<string, unknown>;
  /** Stops (incomplete) once this many milliseconds have passed since the start; no budget when omitted. */
  timeBudgetMs?: number;
  /** Milliseconds clock; injected so tests control time. */
  now?: () => number;
}

export interface BatchLoopContext {
  input: BatchLoopInput;
  realmId: number | undefined;
  startedAt: number;
  /** Items handled by every step so far. */
  count: number;
  batches: number;
  more: boolean;
  complete: boolean;
  /** Why a step failed (the realm refused it or the database was unavailable). */
  error: unknown;
}

export interface BatchLoopOutput {
  complete: boolean;
  count: number;
  error: unknown;
}

const clock = (input: BatchLoopInput) => (input.now ?? Date.now)();

/** A batch-loop machine named `id` (its actors' kind). */
export function batchLoopMachine(id: string) {
  return setup({
    types: {
      context: {} as BatchLoopContext,
      input: {} as BatchLoopInput,
      output: {} as BatchLoopOutput,
    },
    actors: {
      step: fromPromise<BatchResult, BatchLoopInput>(({ input }) => input.step()),
    },
    guards: {
      nothingLeft: ({ context }) => !context.more,
      outOfTime: ({ context }) => {
        const budget = context.input.timeBudgetMs;
        return budget !== undefined && clock(context.input) - context.startedAt >= budget;
      },
    },
  }).createMachine({
    id,
    context: ({ input }) => ({ input, realmId: input.realmId, startedAt: clock(input), count: 0, batches: 0, more: true, complete: false, error: null }),
    initial: 'running',
    states: {
      running: {
        invoke: {
          src: 'step',
          input: ({ context }) => context.input,
          onDone: {
            target: 'deciding',
            actions: assign(({ context, event }) => ({
              count: context.count + event.output.count,
              batches: context.batches + 1,
              more: event.output.more,
            })),
          },
          onError: { target: 'failed', actions: assign({ error: ({ event }) => event.error }) },
        },
      },
      deciding: {
        always: [
          { guard: 'nothingLeft', target: 'done', actions: assign({ complete: true }) },
          { guard: 'outOfTime', target: 'done' },
          { target: 'running' },
        ],
      },
      done: { type: 'final' },
      failed: { type: 'final' },
    },
    output: ({ context }) => ({ complete: context.complete, count: context.count, error: context.error }),
  });
}
