// The actor system on its own: actors are registered under unique ids until they end, jobs run to their output,
// and shutdown stops keepers and actors phase by phase, leaving nothing running and starting nothing new.
import test from 'ava';
import { setup } from 'xstate';
import { ActorSystem, STOP_PHASE } from '../../src/actors/system.js';
import { ActorDirectory } from '../../src/operators/actor-directory.js';

const idle = setup({ types: { events: {} as { type: 'FINISH' } } }).createMachine({
  id: 'idle',
  initial: 'on',
  states: { on: { on: { FINISH: 'finished' } }, finished: { type: 'final' } },
});

const job = setup({ types: { input: {} as { n: number }, output: {} as { doubled: number }, events: {} as { type: 'FINISH' } } }).createMachine({
  id: 'job',
  context: ({ input }) => input,
  initial: 'working',
  states: { working: { on: { FINISH: 'finished' } }, finished: { type: 'final' } },
  output: ({ context }) => ({ doubled: context.n * 2 }),
});

test('actors are listed under unique ids until they stop or finish', async (t) => {
  const system = new ActorSystem();
  const a = system.create(idle, { id: 'idle:1' }).start();
  const b = system.create(idle, { id: 'idle:2' }).start();
  t.deepEqual([...system.actors()].map((x) => x.id), ['idle:1', 'idle:2']);
  t.is(system.get('idle:2'), b);
  t.throws(() => system.create(idle, { id: 'idle:1' }), { message: /already running/ });
  a.stop();
  b.send({ type: 'FINISH' });
  await null;
  t.is(system.size, 0);
  // The id is free again once its actor ended, even within the step that ended it.
  const c = system.create(idle, { id: 'idle:2' }).start();
  c.send({ type: 'FINISH' });
  const d = system.create(idle, { id: 'idle:2' }).start();
  await null;
  t.is(system.get('idle:2'), d, 'the ended actor\'s late forget leaves its successor alone');
  t.is(system.size, 1);
});

test('an actor that ends is still found while inspection observers get its final snapshot, and forgotten after', async (t) => {
  const system = new ActorSystem();
  const directory = new ActorDirectory(system);
  const ended: { id: string; status: string; found: boolean; state: string | undefined }[] = [];
  const unwatch = directory.watch((c) => {
    if (c.type !== 'ended') return;
    const found = directory.find(c.id);
    ended.push({ id: c.id, status: c.status, found: system.get(c.id) !== undefined, state: found && directory.row(found).state });
  });
  const finishing = system.create(idle, { id: 'idle:done' }).start();
  finishing.send({ type: 'FINISH' });
  t.deepEqual(ended, [{ id: 'idle:done', status: 'done', found: true, state: 'finished' }]);
  await null;
  t.is(system.get('idle:done'), undefined);
  t.is(system.size, 0);
  // A job's end too: run() resolves, the operators saw it end with the actor still there.
  const out = system.run(job, { id: 'job', input: { n: 2 } });
  [...system.actors()][0]!.send({ type: 'FINISH' });
  t.deepEqual(await out, { doubled: 4 });
  t.like(ended[1], { status: 'done', found: true, state: 'finished' });
  t.is(system.size, 0);
  unwatch();
});

test('a job resolves with its output; ids get a sequence number', async (t) => {
  const system = new ActorSystem();
  const out = system.run(job, { id: 'job', input: { n: 21 } });
  const [running] = [...system.actors()];
  t.regex(running!.id, /^job:\d+$/);
  running!.send({ type: 'FINISH' });
  t.deepEqual(await out, { doubled: 42 });
  t.is(system.size, 0);
});

test('shutdown stops each phase\'s keepers, then its actors, phase after phase; the rest last; nothing starts after', async (t) => {
  const errors: string[] = [];
  const system = new ActorSystem({ onStopError: (keeper) => errors.push(keeper) });
  const seen: string[] = [];
  const watch = (id: string, stopPhase?: (typeof STOP_PHASE)[keyof typeof STOP_PHASE]) => {
    const actor = system.create(idle, { id, stopPhase });
    actor.subscribe({ complete: () => seen.push(`stopped ${id}`) });
    return actor.start();
  };
  watch('queue:1', STOP_PHASE.queues);
  watch('loose');
  watch('feeder:1', STOP_PHASE.feeders);
  watch('root', STOP_PHASE.realms);
  const pending = system.run(job, { id: 'topicDeletion', input: { n: 1 } });
  system.keep({ name: 'queues', phase: STOP_PHASE.queues, stop: () => void seen.push('keeper queues') });
  system.keep({
    name: 'realms',
    phase: STOP_PHASE.realms,
    stop: async (timeoutMs) => {
      await new Promise((r) => setTimeout(r, 5));
      seen.push(`keeper realms ${timeoutMs}`);
    },
  });
  system.keep({ name: 'broken', phase: STOP_PHASE.feeders, stop: () => Promise.reject(new Error('no')) });
  system.keep({ name: 'sessions', phase: STOP_PHASE.feeders, stop: () => void seen.push('keeper sessions') });
  await system.stop(1234);
  t.deepEqual(seen, [
    'keeper sessions',
    'stopped feeder:1',
    'keeper realms 1234',
    'stopped root',
    'keeper queues',
    'stopped queue:1',
    'stopped loose',
  ]);
  t.deepEqual(errors, ['broken'], 'a failing keeper is reported and the others still stop');
  t.is(system.size, 0);
  await t.throwsAsync(pending, { message: 'The server is shutting down' }, 'a job stopped by shutdown is refused as unavailable');
  t.throws(() => system.create(idle, { id: 'late' }), { message: 'The server is shutting down' });
});
