// A reply goes out in one write even when another connection's request causes it. uWebSockets.js corks the connection
// whose request it is handing over (microtasks included) and no other can be corked meanwhile: a parked poll answered
// by another request (a queue deletion, a poll replacing it) was written part by part, one TCP segment for the status
// line, for each header name, ": ", value and line end, and for the body (23 for a small answer). Counted here by
// the kernel: the client socket's `data_segs_in` from `ss -ti` (iproute2), before and after the answer.
import test from 'ava';
import { execFile } from 'node:child_process';
import net from 'node:net';
import { promisify } from 'node:util';
import { startTestServer, type TestServer } from '../helpers/server.js';

const exec = promisify(execFile);

/** Data segments the kernel has received on the client socket bound to local port `port`. */
async function segmentsIn(port: number): Promise<number> {
  const { stdout } = await exec('ss', ['-tinH', 'state', 'established', `( sport = :${port} )`]);
  const m = /data_segs_in:(\d+)/.exec(stdout);
  // A socket that has received nothing yet has no data_segs_in field.
  return m ? Number(m[1]) : 0;
}

/** A raw connection holding one GET /events parked; resolves with the whole answer (head and body) when it comes. */
function parkPoll(s: TestServer, queueId: string): Promise<{ socket: net.Socket; answer: Promise<string> }> {
  const socket = net.connect({ host: '127.0.0.1', port: s.port });
  const auth = Buffer.from(`${s.owner.email}:${s.owner.apiKey}`).toString('base64');
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.once('connect', () => {
      let text = '';
      const answer = new Promise<string>((done) => {
        socket.on('data', (c) => {
          text += c.toString();
          const head = text.indexOf('\r\n\r\n');
          const length = /content-length: (\d+)/i.exec(text);
          if (head >= 0 && length && text.length >= head + 4 + Number(length[1])) done(text);
        });
      });
      socket.write(`GET /api/v1/events?queue_id=${encodeURIComponent(queueId)}&last_event_id=-1 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic ${auth}\r\n\r\n`);
      resolve({ socket, answer });
    });
  });
}

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
}

/** Requests on another connection that answer the parked poll inside their own handling. */
const triggers = [
  {
    name: 'a poll replacing it on the same queue (answered with no events)',
    status: /^HTTP\/1\.1 200 OK\r\n/,
    fire: (s: TestServer, queueId: string) => s.client.as(s.owner).get('/events', { query: { queue_id: queueId, last_event_id: '-1', dont_block: 'true' } }),
  },
  {
    name: 'the deletion of its queue (answered with no events)',
    status: /^HTTP\/1\.1 200 OK\r\n/,
    fire: (s: TestServer, queueId: string) => s.client.as(s.owner).delete('/events', { form: { queue_id: queueId } }),
  },
];

for (const trigger of triggers) {
  test(`a parked poll answered by ${trigger.name} arrives in one TCP segment`, async (t) => {
    const s = await startTestServer();
    try {
      const registered = await s.client.as(s.owner).post('/register', { form: { event_types: '["message"]' } });
      const queueId = registered.json.queue_id as string;
      const { socket, answer } = await parkPoll(s, queueId);
      await until(() => s.server.services.longPolls.count === 1);
      t.is(s.server.services.longPolls.count, 1, 'the poll is parked');
      const before = await segmentsIn(socket.localPort!);
      const fired = await trigger.fire(s, queueId);
      t.true(fired.status === 200, fired.text);
      const text = await answer;
      t.regex(text, trigger.status);
      t.regex(text, /\r\nX-Request-Id: [\w.:-]+\r\n/i);
      t.is((await segmentsIn(socket.localPort!)) - before, 1, 'the whole answer in one segment (one write)');
      socket.destroy();
    } finally {
      await s.close();
    }
  });
}
