// When a reply is written (CorkTurn, src/http/respond.ts), without a server: at once, unless it is another connection's
// reply made inside a uWS callback (its request's handling, microtasks included), which waits until that callback is
// over. A reply made afterwards in the same loop iteration (a database answer, a timer) does not wait for the
// iteration's end. test/http/corked-replies.test.ts checks with a real server that the waiting replies go out corked.
import test from 'ava';
import type { HttpResponse } from 'uWebSockets.js';
import { CorkTurn, type Reply } from '../../src/http/respond.js';

const REPLY: Reply = { status: 200, body: '{}' };

function setup() {
  const written: string[] = [];
  const turn = new CorkTurn((res) => written.push((res as unknown as { name: string }).name));
  const res = (name: string) => ({ name }) as unknown as HttpResponse;
  const write = (r: HttpResponse) => turn.write(r, { aborted: false } as never, REPLY, false, false);
  return { turn, written, res, write };
}

const nextImmediate = () => new Promise<void>((r) => setImmediate(r));

test("a callback's own reply is written at once, another connection's waits until the callback's microtasks are over", async (t) => {
  const { turn, written, res, write } = setup();
  const a = res('a');
  const b = res('b');
  const c = res('c');
  const seen: string[][] = [];
  await new Promise<void>((done) => {
    setImmediate(() => {
      turn.enter(a);
      write(b);
      write(a);
      seen.push([...written]);
      // Later in the same request's handling (a chain of awaits): still inside the callback.
      void (async () => {
        for (let i = 0; i < 5; i++) await Promise.resolve();
        write(c);
        seen.push([...written]);
        done();
      })();
    });
  });
  t.deepEqual(seen, [['a'], ['a']]);
  await nextImmediate();
  t.deepEqual(written, ['a', 'b', 'c']);
});

test('a reply made after a uWS callback, in the same loop iteration, is written at once', async (t) => {
  const { turn, written, res, write } = setup();
  const seen = await new Promise<string[]>((done) => {
    // Two callbacks of one check phase, as a request's callback and then a database answer are in one poll phase.
    setImmediate(() => turn.enter(res('a')));
    setImmediate(() => {
      write(res('b'));
      done([...written]);
    });
  });
  t.deepEqual(seen, ['b']);
});

test('a reply whose client went away while it waited is not written', async (t) => {
  const { turn, written, res } = setup();
  const gone = { aborted: false };
  await new Promise<void>((done) => {
    setImmediate(() => {
      turn.enter(res('a'));
      turn.write(res('b'), gone as never, REPLY, false, false);
      gone.aborted = true;
      done();
    });
  });
  await nextImmediate();
  t.deepEqual(written, []);
});
