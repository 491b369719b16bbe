// Event queues over WebSocket against a real server: delivery, order, acknowledgement and pruning, reconnect with
// resume, switching between the socket and polling, expiry after the last socket closes, error frames and close codes,
// a slow reader's disconnect with its queue kept, pings, tickets, and what operators see.
import test from 'ava';
import { EventSocket, type Closed } from '../../src/client/event-socket.js';
import { CLOSE } from '../../src/http/events-socket.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { socketEnd } from '../helpers/socket-end.js';
import { addUser, type TestUser } from '../helpers/users.js';

/** Short enough for a test to wait out, long enough for a loaded machine to open a socket in time. */
const IDLE_TIMEOUT_MS = 8000;
const MAX_BUFFERED = 256 * 1024;

let s: TestServer;
let base: string;

test.before(async () => {
  s = await startTestServer({
    env: {
      EVENT_QUEUE_IDLE_TIMEOUT_MS: String(IDLE_TIMEOUT_MS),
      EVENT_QUEUE_SWEEP_MS: '200',
      EVENT_SOCKET_MAX_BUFFERED_BYTES: String(MAX_BUFFERED),
      // uWebSockets.js pings a quiet socket after idleTimeout − margin and closes it (1006) when the margin passes
      // without an answer; the margin also bounds how long a socket it ends (4413, say) may take to send its last
      // bytes. The margin is 4, 8 or 16 s, 16 from 32 s on, counted in 4 s ticks: with 8 s a closing slow reader had
      // 0–4 s to take its backlog, and a loaded machine often took longer (1006 instead of 4413, 1 run in 5).
      EVENT_SOCKET_IDLE_TIMEOUT_S: '32',
    },
  });
  base = `http://127.0.0.1:${s.port}`;
});
test.after.always(async () => s?.close());

async function register(user: TestUser, form: Record<string, string> = {}): Promise<string> {
  const r = await s.client.as(user).post('/register', { form: { event_types: '["message"]', fetch_event_types: '[]', ...form } });
  if (r.status !== 200) throw new Error(r.text);
  return r.json.queue_id;
}

function connect(user: TestUser, queueId: string, extra: Partial<Parameters<typeof EventSocket.connect>[0]> = {}): Promise<EventSocket> {
  return EventSocket.connect({ base, queueId, auth: user, ...extra });
}

async function sendDirect(from: TestUser, to: TestUser, content: string): Promise<number> {
  const r = await s.client.as(from).post('/messages', { form: { type: 'direct', to: JSON.stringify([to.id]), content } });
  if (r.status !== 200) throw new Error(r.text);
  return r.json.id;
}

/** Puts `n` events straight into a user's queues (the router's own entry point), each about `chars` characters long. */
function enqueue(user: TestUser, n: number, chars = 10, char = 'x'): void {
  const events = Array.from({ length: n }, () => ({ type: 'realm', op: 'update', property: 'description', value: char.repeat(chars) }));
  s.server.services.queues.enqueue([user.id], events);
}

function poll(user: TestUser, queueId: string, lastEventId: number, dontBlock = true) {
  return s.client.as(user).get('/events', { query: { queue_id: queueId, last_event_id: String(lastEventId), dont_block: String(dontBlock) } });
}

function ids(events: { id: number }[]): number[] {
  return events.map((e) => e.id);
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

/** A user, a queue of theirs, a socket on it that acknowledges only when told, and `n` events (ids 0 to n − 1) taken through it. */
async function socketWithEvents(t: import('ava').ExecutionContext, n: number): Promise<{ bob: TestUser; queueId: string; socket: EventSocket }> {
  const bob = await addUser(s);
  const queueId = await register(bob);
  const socket = await connect(bob, queueId, { autoAck: false });
  enqueue(bob, n);
  t.deepEqual(ids(await socket.take(n)), range(0, n - 1));
  return { bob, queueId, socket };
}

async function until(cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('a message sent to the user arrives as a frame shaped like a GET /events answer', async (t) => {
  const alice = await addUser(s);
  const bob = await addUser(s);
  const queueId = await register(bob, { apply_markdown: 'true' });
  const socket = await connect(bob, queueId);
  const messageId = await sendDirect(alice, bob, 'hello **socket**');
  const frame = await socket.next();
  t.truthy(frame);
  const raw = frame as unknown as Record<string, unknown>;
  t.deepEqual(Object.keys(raw), ['result', 'msg', 'events', 'queue_id']);
  t.is(raw.result, 'success');
  t.is(raw.msg, '');
  t.is(frame!.queue_id, queueId);
  t.is(frame!.events.length, 1);
  const e = frame!.events[0]! as { id: number; type: string; message: { id: number; content: string }; flags: string[] };
  t.is(e.id, 0);
  t.is(e.type, 'message');
  t.is(e.message.id, messageId);
  t.is(e.message.content, '<p>hello <strong>socket</strong></p>', 'the queue form (apply_markdown) applies');
  t.deepEqual(e.flags, []);
  await socket.close();
});

test('events arrive in id order with no gaps or repeats, across many frames', async (t) => {
  const alice = await addUser(s);
  const bob = await addUser(s);
  const queueId = await register(bob);
  const socket = await connect(bob, queueId);
  await Promise.all(Array.from({ length: 25 }, (_, i) => sendDirect(alice, bob, `m${i}`)));
  enqueue(bob, 25);
  const events = await socket.take(50);
  t.deepEqual(ids(events), range(0, 49));
  // Messages committed in some order; each arrives once.
  const messageIds = events.filter((e) => e.type === 'message').map((e) => (e.message as { id: number }).id);
  t.is(new Set(messageIds).size, 25);
  t.deepEqual(messageIds, [...messageIds].sort((a, b) => a - b), 'message events in commit order');
  await socket.close();
});

test('an acknowledgement prunes as last_event_id does; a reconnect resumes after what was acknowledged', async (t) => {
  const { bob, queueId, socket: first } = await socketWithEvents(t, 10);
  first.ack(5);
  await until(() => s.server.services.queues.get(queueId)!.firstUnacked === 6, 'the acknowledgement');
  t.is(s.server.services.queues.get(queueId)!.size, 4, 'events 0–5 pruned');
  await first.close();

  // Reconnecting from the acknowledged point: what was not acknowledged comes again, then what is new.
  const second = await connect(bob, queueId, { lastEventId: 5, autoAck: false });
  enqueue(bob, 2);
  t.deepEqual(ids(await second.take(6)), range(6, 11));
  await second.close();

  // Asking for something already pruned is an error frame, then a close.
  const third = await connect(bob, queueId, { lastEventId: 2 });
  const closed = await third.closed;
  t.is(closed.code, CLOSE.badRequest);
  t.is(closed.error?.code, 'BAD_REQUEST');
  t.is(closed.error?.msg, 'An event newer than 2 has already been pruned!');
  t.is((closed.error as unknown as { result: string }).result, 'error');
});

test('the client never sends an acknowledgement older than one it sent: a late ack(lower) keeps the socket open', async (t) => {
  const { bob, queueId, socket } = await socketWithEvents(t, 10);
  socket.ack(7);
  await until(() => s.server.services.queues.get(queueId)!.firstUnacked === 8, 'the acknowledgement');
  // An older id (a consumer acknowledging the frames it finished, out of order): the server would refuse it.
  socket.ack(5);
  t.is(socket.acked, 7);
  enqueue(bob, 1);
  t.deepEqual(ids(await socket.take(1, 10_000)), [10], 'the socket stays open and streams');
  t.is(socket.ws.readyState, socket.ws.OPEN);
  t.is(s.server.services.queues.get(queueId)!.firstUnacked, 8);
  await socket.close();
});

test('repeated acknowledgements reach the queue once: its work is bounded by what it sent, not by the frames a client sends', async (t) => {
  const { queueId, socket } = await socketWithEvents(t, 3);
  const acks: number[] = [];
  // Every acknowledgement that reaches the queue, counted on its way in.
  const queue = s.server.services.queues.get(queueId)!;
  const ack = queue.ack.bind(queue);
  queue.ack = (handle, lastEventId) => {
    acks.push(lastEventId);
    ack(handle, lastEventId);
  };
  for (let i = 0; i < 200; i++) socket.ws.send('{"last_event_id": 2}');
  // An older id after them: refused, the socket closed; by then every frame before it was handled.
  socket.ws.send('{"last_event_id": 1}');
  t.is((await socket.closed).code, CLOSE.badRequest);
  t.deepEqual(acks, [2, 1]);
});

test('an acknowledgement of an event the queue never had is an error frame and a close', async (t) => {
  const bob = await addUser(s);
  const queueId = await register(bob);
  const socket = await connect(bob, queueId, { autoAck: false });
  socket.ack(7);
  const closed = await socket.closed;
  t.is(closed.code, CLOSE.badRequest);
  t.is(closed.error?.msg, 'Event 7 was not in this queue');
  // The queue itself is kept.
  t.is((await poll(bob, queueId, -1)).status, 200);
});

test('a frame that is not an acknowledgement is an error frame and a close', async (t) => {
  const bob = await addUser(s);
  const queueId = await register(bob);
  const socket = await connect(bob, queueId);
  socket.ws.send('{"last_event_id": "three"}');
  const closed = await socket.closed;
  t.is(closed.code, CLOSE.badRequest);
  t.is(closed.error?.code, 'BAD_REQUEST');
});

test('a client switches between the socket and polling on the same queue', async (t) => {
  const { bob, queueId, socket } = await socketWithEvents(t, 4);
  socket.ack(1);
  await socket.close();
  // The poll gets what the socket did not acknowledge.
  const polled = await poll(bob, queueId, 1);
  t.is(polled.status, 200);
  t.deepEqual(ids(polled.json.events), [2, 3]);
  // A parked poll is answered when a socket takes the queue over; the socket then gets the new events.
  const parked = poll(bob, queueId, 3, false);
  await until(() => s.server.services.queues.get(queueId)!.state === 'polling', 'the parked poll');
  const again = await connect(bob, queueId, { lastEventId: 3 });
  t.deepEqual((await parked).json.events, []);
  enqueue(bob, 1);
  t.deepEqual(ids(await again.take(1)), [4]);
  // A poll while the socket is open replaces it: the socket is closed (4409) and the poll answered.
  const polledAgain = await poll(bob, queueId, 4);
  t.is(polledAgain.status, 200);
  t.deepEqual(polledAgain.json.events, []);
  const closed = await again.closed;
  t.is(closed.code, CLOSE.replaced);
  t.is(closed.error, null, 'no error frame: nothing went wrong');
});

test('a second socket on the queue replaces the first', async (t) => {
  const bob = await addUser(s);
  const queueId = await register(bob);
  const first = await connect(bob, queueId);
  const second = await connect(bob, queueId);
  t.is((await first.closed).code, CLOSE.replaced);
  enqueue(bob, 1);
  t.deepEqual(ids(await second.take(1)), [0]);
  await second.close();
});

test('a queue with a socket open is not collected; it expires the idle timeout after the last socket closes', async (t) => {
  const bob = await addUser(s);
  const queueId = await register(bob);
  const socket = await connect(bob, queueId);
  // Twice the idle timeout with the socket open and quiet.
  await new Promise((r) => setTimeout(r, 2 * IDLE_TIMEOUT_MS));
  t.truthy(s.server.services.queues.get(queueId), 'kept while the socket is open');
  enqueue(bob, 1);
  t.deepEqual(ids(await socket.take(1)), [0]);
  // Taken before the close: the queue idles from when the server learns of it, which a loaded machine may tell the
  // client well after.
  const closedAt = Date.now();
  await socket.close();
  await until(() => s.server.services.queues.get(queueId) === undefined, 'the expiry', 4 * IDLE_TIMEOUT_MS);
  t.true(Date.now() - closedAt >= IDLE_TIMEOUT_MS - 500, 'not before the idle timeout');
  const r = await poll(bob, queueId, 0);
  t.is(r.status, 400);
  t.is(r.json.code, 'BAD_EVENT_QUEUE_ID');
});

test('an unknown queue, another user’s queue, and a deleted queue: BAD_EVENT_QUEUE_ID frames and close 4404', async (t) => {
  const bob = await addUser(s);
  const eve = await addUser(s);
  const queueId = await register(bob);
  for (const [who, q] of [
    [bob, 'nosuch:queue'],
    [eve, queueId],
  ] as const) {
    const closed = await (await connect(who, q)).closed;
    t.is(closed.code, CLOSE.badEventQueueId);
    t.like(closed.error, { result: 'error', code: 'BAD_EVENT_QUEUE_ID', msg: `Bad event queue ID: ${q}` } as never);
  }
  const socket = await connect(bob, queueId);
  t.is((await s.client.as(bob).delete('/events', { form: { queue_id: queueId } })).status, 200);
  const closed = await socket.closed;
  t.is(closed.code, CLOSE.badEventQueueId);
  t.is(closed.error?.code, 'BAD_EVENT_QUEUE_ID');
});

test('the upgrade authenticates like GET /events: a wrong key or no credentials is refused before upgrading', async (t) => {
  const bob = await addUser(s);
  const queueId = await register(bob);
  const wrong = await t.throwsAsync(connect(bob, queueId, { auth: { email: bob.email, apiKey: 'wrong' } }));
  t.is((wrong as unknown as { status: number }).status, 401);
  t.is(JSON.parse((wrong as unknown as { body: string }).body).code, 'INVALID_API_KEY');
  const none = await t.throwsAsync(EventSocket.connect({ base, queueId }));
  t.is((none as unknown as { status: number }).status, 401);
  // Without an upgrade, the path is an error, not a hanging request.
  const plain = await s.client.as(bob).get('/events/socket', { query: { queue_id: queueId } });
  t.is(plain.status, 400);
});

test('a socket ends when the API key it opened with is regenerated (error frame, close 4401); the queue is kept', async (t) => {
  const bob = await addUser(s);
  const queueId = await register(bob);
  const socket = await connect(bob, queueId);
  enqueue(bob, 1);
  t.deepEqual(ids(await socket.take(1)), [0]);
  const regenerated = await s.client.as(bob).post('/users/me/api_key/regenerate');
  t.is(regenerated.status, 200);
  enqueue(bob, 1);
  const closed = await socket.closed;
  t.is(closed.code, CLOSE.unauthorized);
  t.is(closed.error?.code, 'INVALID_API_KEY');
  t.is(socket.lastEventId, 0, 'nothing more reached it');
  // The owner of the new key resumes the queue.
  const again = await connect({ ...bob, apiKey: regenerated.json.api_key as string }, queueId, { lastEventId: 0 });
  t.deepEqual(ids(await again.take(1)), [1]);
  await again.close();
});

test('a ticket opens the socket once, for its queue only; the API key never enters the URL', async (t) => {
  const bob = await addUser(s);
  const queueId = await register(bob);
  const otherQueue = await register(bob);
  const issued = await s.client.as(bob).post('/events/socket/ticket', { form: { queue_id: queueId } });
  t.is(issued.status, 200);
  const ticket = issued.json.ticket as string;
  t.true(ticket.length >= 40);
  t.false(ticket.includes(bob.apiKey));
  t.is(issued.json.expires_in_seconds, 30);
  const refusedElsewhere = await t.throwsAsync(EventSocket.connect({ base, queueId: otherQueue, ticket }));
  t.is((refusedElsewhere as unknown as { status: number }).status, 401, 'a ticket is for its queue, and spent by a try');
  const ticket2 = (await s.client.as(bob).post('/events/socket/ticket', { form: { queue_id: queueId } })).json.ticket as string;
  const socket = await EventSocket.connect({ base, queueId, ticket: ticket2 });
  enqueue(bob, 1);
  const got = await socket.take(1);
  t.deepEqual(ids(got), [0], got.length < 1 ? await socketEnd(socket) : undefined);
  await socket.close();
  const reused = await t.throwsAsync(EventSocket.connect({ base, queueId, ticket: ticket2 }));
  t.is((reused as unknown as { status: number }).status, 401, 'one use');
  const foreign = await s.client.as(await addUser(s)).post('/events/socket/ticket', { form: { queue_id: queueId } });
  t.is(foreign.json.code, 'BAD_EVENT_QUEUE_ID', 'no ticket for another user’s queue');
});

/** A reader that stops reading while `chars` long events of `char` are enqueued: it is closed 4413 (counted as slow),
 *  its queue kept, and a reconnect resumes after what it had received. */
async function slowReader(t: import('ava').ExecutionContext, chars: number, char: string): Promise<void> {
  const bob = await addUser(s);
  const queueId = await register(bob);
  const socket = await connect(bob, queueId, { autoAck: false });
  socket.ws.pause();
  const slowBefore = s.server.services.sockets.counters.ended.slow;
  // Events until the server gives up on the reader (the kernel's socket buffers take some megabytes first).
  let sent = 0;
  while (s.server.services.sockets.counters.ended.slow === slowBefore) {
    enqueue(bob, 1, chars, char);
    sent++;
    if (sent % 8 === 0) await new Promise((r) => setImmediate(r));
    if (sent > 2000) break;
  }
  t.true(sent <= 2000, 'disconnected as a slow reader');
  const queue = s.server.services.queues.get(queueId);
  t.truthy(queue, 'the queue is kept');
  t.is(queue!.state, 'waiting', 'no socket on it any more');
  socket.ws.resume();
  const closed: Closed = await socket.closed;
  t.is(closed.code, CLOSE.slowReader, JSON.stringify(closed));
  const got = socket.lastEventId;
  t.true(got < sent - 1, 'it had not received everything');
  const again = await connect(bob, queueId, { lastEventId: got, autoAck: false });
  const resumed = await again.take(sent - 1 - got, 60_000);
  t.deepEqual(ids(resumed), range(got + 1, sent - 1), resumed.length < sent - 1 - got ? await socketEnd(again) : undefined);
  await again.close();
}

test('a client that does not read is disconnected past the bound of buffered bytes; its queue is kept and it resumes', (t) => slowReader(t, 32 * 1024, 'x'));

// 64 Ki characters of 3 UTF-8 bytes each: 192 KiB a frame, under the 256 KiB bound in characters but not in bytes.
// Counted in characters, frames would pass the bound until uWebSockets.js's own backstop (64 KiB above it) dropped
// them and closed the socket as if the client had gone, not 4413.
test('the bound counts bytes: a slow reader of multibyte frames is closed 4413 at the byte bound, its queue kept', (t) => slowReader(t, 64 * 1024, '€'));

test('a backlog bigger than the bound of buffered bytes still reaches a reconnecting client, in frames that fit', async (t) => {
  const bob = await addUser(s);
  const queueId = await register(bob);
  // 1.25 MiB waiting while no socket is open: five times the bound.
  enqueue(bob, 40, 32 * 1024);
  const seen: number[] = [];
  let last = -1;
  // A client may be closed as slow on the way (4413); each connection must bring it further.
  for (let attempt = 0; attempt < 5 && last < 39; attempt++) {
    const socket = await connect(bob, queueId, { lastEventId: last });
    seen.push(...ids(await socket.take(39 - last, 10_000)));
    t.true(socket.lastEventId > last, `connection ${attempt} brought events`);
    last = socket.lastEventId;
    await socket.close();
  }
  t.deepEqual(seen, range(0, 39));
});

test('quiet sockets get WebSocket pings (the heartbeat)', async (t) => {
  const bob = await addUser(s);
  const queueId = await register(bob);
  const socket = await connect(bob, queueId);
  const pinged = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), 30_000);
    socket.ws.once('ping', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
  t.true(pinged);
  t.is(socket.ws.readyState, socket.ws.OPEN);
  await socket.close();
});

test('operators see open sockets (dashboard counts, /metrics) and frames, bytes and disconnect reasons', async (t) => {
  const bob = await addUser(s);
  const queueId = await register(bob);
  const socket = await connect(bob, queueId);
  const streaming = () =>
    s.server.services.operators.actors.counts().find((c) => c.kind === 'eventQueue' && c.state === 'streaming')?.count ?? 0;
  t.true(streaming() >= 1, 'the dashboard’s actor counts show the queue streaming');
  enqueue(bob, 3);
  await socket.take(3);
  const metrics = await s.server.services.operators.metrics.registry.metrics();
  const value = (name: string) => Number(new RegExp(`^${name} (\\d+)`, 'm').exec(metrics)?.[1] ?? NaN);
  t.true(value('palaver_event_sockets_open') >= 1);
  t.true(value('palaver_event_socket_frames_total') >= 1);
  t.true(value('palaver_event_socket_bytes_total') > 100);
  t.regex(metrics, /palaver_event_socket_disconnects_total\{reason="replaced"\} \d+/);
  // Other tests close sockets too: the client's close must raise the count from what it was while this one was open.
  const clientCloses = async () => {
    const m = /palaver_event_socket_disconnects_total\{reason="client"\} (\d+)/.exec(await s.server.services.operators.metrics.registry.metrics());
    return Number(m?.[1] ?? 0);
  };
  const before = await clientCloses();
  await socket.close();
  await until(async () => (await clientCloses()) > before, 'the client’s close counted');
  t.true((await clientCloses()) > before);
});

test('shutdown closes open sockets with 1001; the queue survives the restart and the client resumes', async (t) => {
  const own = await startTestServer();
  try {
    const bob = await addUser(own);
    const reg = await own.client.as(bob).post('/register', { form: { event_types: '["message"]', fetch_event_types: '[]' } });
    const queueId = reg.json.queue_id as string;
    const socket = await EventSocket.connect({ base: `http://127.0.0.1:${own.port}`, queueId, auth: bob, autoAck: false });
    own.server.services.queues.enqueue([bob.id], [{ type: 'realm', op: 'update', property: 'description', value: 'before' }]);
    t.deepEqual(ids(await socket.take(1)), [0]);
    await own.stop();
    const closed = await socket.closed;
    t.is(closed.code, CLOSE.shutdown);
    const again = await startTestServer({ reuse: { dataDir: own.dataDir, databaseUrl: own.databaseUrl } });
    try {
      const resumed = await EventSocket.connect({ base: `http://127.0.0.1:${again.port}`, queueId, auth: bob, lastEventId: -1 });
      t.deepEqual(ids(await resumed.take(1)), [0], 'the unacknowledged event comes again');
      await resumed.close();
    } finally {
      await again.stop();
    }
  } finally {
    await own.close();
  }
});
