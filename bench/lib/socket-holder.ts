// A load-generator process for `idle --transport socket`: holds event sockets on the queues it is given (its own
// process, so the sockets of many of these spread over several open-file caps). Input: a JSON file named by argv[2]
// ({ base, creds, queues, wave }). Output: one JSON line per change on stdout ({ open, errors, pings, closed, why: counts
// of failures and early closes by kind });
// stops (closing its sockets) on "stop" on stdin.
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { EventSocket } from '../../src/client/event-socket.js';

interface HolderInput {
  base: string;
  creds: { email: string; apiKey: string };
  queues: string[];
  wave: number;
}

const input = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as HolderInput;
const sockets: EventSocket[] = [];
const state = { open: 0, errors: 0, pings: 0, closed: 0, why: {} as Record<string, number> };
const count = (kind: string) => (state.why[kind] = (state.why[kind] ?? 0) + 1);
let reported = '';
const report = () => {
  const line = JSON.stringify(state);
  if (line !== reported) process.stdout.write((reported = line) + '\n');
};
const timer = setInterval(report, 500);

let stopping = false;
createInterface({ input: process.stdin }).on('line', async (line) => {
  if (line.trim() !== 'stop' || stopping) return;
  stopping = true;
  await Promise.all(sockets.map((s) => s.close()));
  clearInterval(timer);
  report();
  process.exit(0);
});

for (let from = 0; from < input.queues.length && !stopping; from += input.wave) {
  await Promise.all(
    input.queues.slice(from, from + input.wave).map(async (queueId) => {
      try {
        const s = await EventSocket.connect({ base: input.base, queueId, auth: input.creds });
        sockets.push(s);
        state.open++;
        s.ws.on('ping', () => state.pings++);
        void s.closed.then((c) => {
          if (stopping) return;
          state.closed++;
          count(`closed ${c.code}`);
        });
      } catch (err) {
        state.errors++;
        count((err as NodeJS.ErrnoException).code ?? (err as Error).message.slice(0, 60));
      }
    }),
  );
  report();
}
