// The WebSocket floor: a bare uWebSockets.js server that holds WebSockets on any path and, on a POST (any path),
// writes one frame to every open socket: `mode=send` one corked ws.send per socket, `mode=publish` one app.publish to
// a topic all sockets joined. The frame is shaped like an event frame (one message event, so the bench's socket
// clients count it) and padded to `bytes`. Nothing else: no queues, no JSON per socket, acknowledgements dropped.
import type { WebSocket } from 'uWebSockets.js';
import { loadUws } from '../src/uws.js';

const { uws } = loadUws(false);
const TOPIC = 'all';
const sockets = new Set<WebSocket<unknown>>();

/** An event frame for message `id`, its content padded so the frame is `bytes` long (ASCII: bytes = characters). */
function floorFrame(id: number, bytes: number): string {
  const head = `{"result":"success","msg":"","events":[{"type":"message","message":{"id":${id},"content":"`;
  const tail = `"},"id":${id}}],"queue_id":"floor"}`;
  return head + 'x'.repeat(Math.max(0, bytes - head.length - tail.length)) + tail;
}

const app = uws.App();
app
  .ws('/*', {
    maxPayloadLength: 256,
    idleTimeout: 0,
    sendPingsAutomatically: false,
    maxBackpressure: 64 * 1024 * 1024,
    open: (ws) => {
      sockets.add(ws);
      ws.subscribe(TOPIC);
    },
    close: (ws) => {
      sockets.delete(ws);
    },
  })
  .post('/*', (res, req) => {
    const q = new URLSearchParams(req.getQuery() ?? '');
    const frame = floorFrame(Number(q.get('id')), Math.min(Number(q.get('bytes')) || 0, 1 << 20));
    if (q.get('mode') === 'publish') app.publish(TOPIC, frame, false);
    else for (const ws of sockets) ws.cork(() => ws.send(frame, false));
    res.cork(() => res.writeHeader('Content-Type', 'application/json').end(JSON.stringify({ sockets: sockets.size })));
  })
  .listen('127.0.0.1', 0, (s) => {
    if (!s) process.exit(1);
    process.stdout.write(`floor listening on ${uws.us_socket_local_port(s)}\n`);
  });
