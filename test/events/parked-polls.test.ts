// A parked GET /events is held until its queue answers it. uWebSockets.js closes connections that send nothing for 10 s
// (its HTTP idle timeout, not configurable) and the server closes clients that take nothing of a large reply for
// WRITE_STALL_MS; neither may close a connection whose request is parked. Real time: one heartbeat past both.
// The idle timeout does close a connection that has sent no request: a load generator that connects thousands of
// sockets before writing any request loses them (the idle bench's connection resets, bench/lib/client.ts).
import test from 'ava';
import net from 'node:net';
import { startTestServer } from '../helpers/server.js';

/** uWebSockets.js's idle timeout for a connection that has sent nothing (HTTP_IDLE_TIMEOUT_S). */
const UWS_IDLE_TIMEOUT_MS = 10_000;
const HEARTBEAT_MS = UWS_IDLE_TIMEOUT_MS + 1_000;

test('a poll parked longer than the uWS idle timeout and WRITE_STALL_MS is answered with its heartbeat', async (t) => {
  t.timeout(60_000);
  const s = await startTestServer({ env: { EVENT_HEARTBEAT_MS: String(HEARTBEAT_MS), EVENT_QUEUE_SWEEP_MS: '250', WRITE_STALL_MS: '100' } });
  try {
    const registered = await s.client.as(s.owner).post('/register', { form: { event_types: '["message"]' } });
    t.is(registered.status, 200);
    const started = performance.now();
    const held = await s.client.as(s.owner).get('/events', { query: { queue_id: registered.json.queue_id, last_event_id: '-1' } });
    t.is(held.status, 200, held.text);
    t.deepEqual(held.json.events, [{ type: 'heartbeat', id: 0 }]);
    // Not answered early: the server held the request past both timeouts (a heartbeat is due HEARTBEAT_MS after parking).
    t.true(performance.now() - started > UWS_IDLE_TIMEOUT_MS);
    t.is(s.server.services.longPolls.count, 0);
  } finally {
    await s.close();
  }
});

test('a connection that sends no request is closed by the server; one whose request is parked is not', async (t) => {
  t.timeout(60_000);
  const s = await startTestServer({ env: { EVENT_HEARTBEAT_MS: String(HEARTBEAT_MS), EVENT_QUEUE_SWEEP_MS: '250' } });
  try {
    const registered = await s.client.as(s.owner).post('/register', { form: { event_types: '["message"]' } });
    const silent = net.connect({ host: '127.0.0.1', port: s.port });
    const silentClosed = new Promise<string>((resolve) => {
      silent.on('end', () => resolve('end'));
      silent.on('close', () => resolve('close'));
      silent.on('error', (e) => resolve((e as NodeJS.ErrnoException).code ?? e.message));
    });
    const poll = s.client.as(s.owner).get('/events', { query: { queue_id: registered.json.queue_id, last_event_id: '-1' } });
    t.is(await silentClosed, 'end', 'the server ended the silent connection');
    const held = await poll;
    t.is(held.status, 200, held.text);
    t.deepEqual(held.json.events, [{ type: 'heartbeat', id: 0 }]);
    silent.destroy();
  } finally {
    await s.close();
  }
});
