// Why an event socket came back short, for a test's failure message: its close code, reason and error frame, or that
// it is still open (time ran out).
import type { EventSocket } from '../../src/client/event-socket.js';

export async function socketEnd(socket: EventSocket): Promise<string> {
  if (socket.ws.readyState < socket.ws.CLOSING) return 'the socket is still open';
  const { code, reason, error, failure } = await socket.closed;
  return `the socket closed ${code} ${JSON.stringify(reason)}, error frame ${JSON.stringify(error)}${failure ? `, client error ${failure}` : ''}`;
}
