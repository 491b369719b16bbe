// The long-poll floor: a bare uWebSockets.js server that parks every GET (any path) and, on a POST /push, answers
// every parked poll with the same bytes: one event of message `id` padded so the body is `bytes` long, with the same
// headers Palaver writes (Content-Type and an X-Request-Id of the same length; uWS adds Date and Content-Length for
// both). A poll whose `last_event_id` is behind the last push is answered at once (a client that had not parked again
// yet loses nothing, as a queue keeps its events). POST /release answers every parked poll, and every later one at
// once, with no events, until each client has its stop message. Nothing else: no queues, no routing, no authentication.
import type { HttpResponse } from 'uWebSockets.js';
import { loadUws } from '../src/uws.js';

const { uws } = loadUws(false);

const parked = new Set<HttpResponse>();
/** Polls whose clients went away: a uWS response must not be touched after its onAborted. */
const gone = new WeakSet<HttpResponse>();
/** The last push: its event id and body. */
let lastId = 0;
let lastBody: Buffer | null = null;
let released = false;
let requestIds = 0;
const NO_EVENTS = Buffer.from('{"result":"success","msg":"","events":[],"queue_id":"floor"}');

/** A poll answer for message `id`, its content padded so the body is `bytes` long (ASCII: bytes = characters). */
function pollBody(id: number, bytes: number): Buffer {
  const head = `{"result":"success","msg":"","events":[{"type":"message","message":{"id":${id},"content":"`;
  const tail = `"},"flags":[],"id":${id}}],"queue_id":"floor"}`;
  return Buffer.from(head + 'x'.repeat(Math.max(0, bytes - head.length - tail.length)) + tail);
}

/** As Palaver's ids: a 6-character prefix, a dash and a base-36 counter. */
function requestId(): string {
  return `f100r0-${(++requestIds).toString(36)}`;
}

function answer(res: HttpResponse, body: Buffer): void {
  res.cork(() => {
    res.writeHeader('Content-Type', 'application/json').writeHeader('X-Request-Id', requestId()).end(body);
  });
}

const app = uws.App();
app
  .get('/*', (res, req) => {
    const m = /(?:^|&)last_event_id=(-?\d+)/.exec(req.getQuery() ?? '');
    const last = m ? Number(m[1]) : -1;
    if (released) return answer(res, NO_EVENTS);
    if (lastBody && last < lastId) return answer(res, lastBody);
    res.onAborted(() => {
      gone.add(res);
      parked.delete(res);
    });
    parked.add(res);
  })
  // POST …/push and …/release (the bench's client puts its /api/v1 prefix before every path). The parked polls are
  // answered after this handler has returned, as Palaver answers them after a commit: inside a uWS handler the
  // request's own socket is corked, no other can be, and every part of each answer (status line, each header, the
  // body) would be a system call of its own.
  .post('/*', (res, req) => {
    const polls = [...parked];
    parked.clear();
    let body: Buffer = NO_EVENTS;
    if (req.getUrl().endsWith('/release')) released = true;
    else {
      const q = new URLSearchParams(req.getQuery() ?? '');
      lastId = Number(q.get('id'));
      body = lastBody = pollBody(lastId, Math.min(Number(q.get('bytes')) || 0, 1 << 20));
    }
    res.cork(() => res.writeHeader('Content-Type', 'application/json').end(JSON.stringify({ polls: polls.length })));
    setImmediate(() => {
      for (const p of polls) if (!gone.has(p)) answer(p, body);
    });
  })
  .listen('127.0.0.1', 0, (s) => {
    if (!s) process.exit(1);
    process.stdout.write(`pollfloor listening on ${uws.us_socket_local_port(s)}\n`);
  });
