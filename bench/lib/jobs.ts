// The load a bench worker thread generates: send loops (send), long-polling clients (fanout) and users (mixed).
import type { EventSocket } from '../../src/client/event-socket.js';
import { connectionFor, formPrefix, request, type Creds, type Reply } from './client.js';
import { mixedUsers } from './mixed-users.js';
import { nowAbs } from './workers.js';

export interface JobControl {
  /** A message to the main thread (receipts, counts). */
  post(message: unknown): void;
  /** Control messages from the main thread. */
  onMessage(handler: (message: any) => void): void;
}

export interface SendInput {
  base: string;
  /** Absolute start and end times (ms, nowAbs()). */
  startAt: number;
  endAt: number;
  senders: { index: number; item: { creds: Creds; to: string } }[];
}

export interface SendOutput {
  samples: number[];
  /** The second (since startAt) each sample finished in. */
  seconds: number[];
  errors: number;
}

/**
 * Each sender posts to its channel, one message at a time, from the job's start (the warm-up: the window is set once
 * every worker has loaded, and starts later) until endAt; the messages answered from startAt on are the samples.
 * Errors are counted over the warm-up too.
 */
async function sendLoops(input: SendInput, control: JobControl): Promise<SendOutput> {
  const samples: number[] = [];
  const seconds: number[] = [];
  let errors = 0;
  await Promise.all(
    input.senders.map(async ({ index, item }) => {
      let n = 0;
      const connection = connectionFor(index);
      // What changes from one message to the next is the number at the end of its content: the rest is encoded once,
      // and the answer is read for its status only.
      const prefix = formPrefix({ type: 'stream', to: item.to, topic: `t${index % 5}`, content: `load ${index}-` });
      while (nowAbs() < input.endAt) {
        let r: Reply | null = null;
        try {
          r = await request(input.base, 'POST', '/messages', { auth: item.creds, connection, form: prefix + n++, readBody: false });
        } catch {
          // no answer: counted below
        }
        if (!r || r.status !== 200) {
          errors++;
          continue;
        }
        const since = nowAbs() - input.startAt;
        if (since < 0) continue;
        samples.push(r.ms);
        seconds.push(Math.floor(since / 1000));
      }
    }),
  );
  control.post({ kind: 'finished', messages: samples.length });
  return { samples, seconds, errors };
}

/**
 * Message receipts on their way to the main thread, as [message ID, absolute time] pairs: each timed when its answer or
 * frame was read, posted together once per turn of the worker's event loop. One post per frame (1,000 a message) cost
 * the workers a structured clone per frame, and gave the main thread, which times each send's answer, a message per
 * frame to read meanwhile.
 */
class Receipts {
  private ids: number[] = [];
  private ats: number[] = [];
  private flushing = false;

  constructor(private readonly control: JobControl) {}

  add(id: number, at: number): void {
    this.ids.push(id);
    this.ats.push(at);
    if (this.flushing) return;
    this.flushing = true;
    setImmediate(() => {
      this.flushing = false;
      this.control.post({ kind: 'receipts', ids: this.ids, ats: this.ats });
      this.ids = [];
      this.ats = [];
    });
  }
}

export interface PollInput {
  base: string;
  clients: { index: number; item: { creds: Creds; queue: string } }[];
  /** pollClients: poll again as soon as an answer is read (true), not once the answers read with it are timed. */
  repollAtOnce?: boolean;
}

export interface PollOutput {
  errors: number;
  received: number;
  /** Messages a client received again (each client counts the message IDs it got). */
  duplicates: number;
  /** Answers with events, and their bodies' bytes (pollClients only). */
  answers?: number;
  answerBytes?: number;
}

/**
 * Each client long-polls its queue until the main thread says stop (and deletes the queues, which answers
 * the parked polls). Message receipts go to the main thread as Receipts.
 *
 * One thread plays hundreds of clients, so what one client does after its answer delays the receipt time of the
 * answers read after it. A client polls again only once the answers that arrived together have all been read and
 * timed (setImmediate: after the event loop's I/O callbacks), so a receipt's time holds the reading of the answers
 * before it, not their next requests too (each a request object, a write system call and, on loopback, the server's
 * receive path in that call).
 */
async function pollClients(input: PollInput, control: JobControl): Promise<PollOutput> {
  let stopping = false;
  let errors = 0;
  let received = 0;
  let duplicates = 0;
  const receipts = new Receipts(control);
  let answers = 0;
  let answerBytes = 0;
  control.onMessage((m) => {
    if (m?.type === 'stop') stopping = true;
  });
  await Promise.all(
    input.clients.map(async ({ index, item }) => {
      let last = -1;
      const got = new Set<number>();
      const connection = connectionFor(index + 1);
      while (!stopping) {
        const r = await request(input.base, 'GET', '/events', { auth: item.creds, connection, query: { queue_id: item.queue, last_event_id: String(last) } }).catch(() => null);
        const at = nowAbs();
        if (!r || r.status !== 200) {
          if (!stopping) errors++;
          return;
        }
        if (r.body.events.length > 0) {
          answers++;
          answerBytes += r.bytes;
        }
        for (const e of r.body.events) {
          last = Math.max(last, e.id);
          if (e.type !== 'message') continue;
          if (got.has(e.message.id)) duplicates++;
          got.add(e.message.id);
          receipts.add(e.message.id, at);
          received++;
        }
        if (!input.repollAtOnce) await new Promise((r) => setImmediate(r));
      }
    }),
  );
  return { errors, received, duplicates, answers, answerBytes };
}

/**
 * Each client holds a WebSocket on its queue (src/client/event-socket.ts), acknowledging each frame, until the main
 * thread says stop. Receipts go to the main thread as pollClients' do.
 */
async function socketClients(input: PollInput, control: JobControl): Promise<PollOutput> {
  // Loaded here, not with the module: the other jobs' workers (the HTTP ceiling's among them) start without it.
  const { EventSocket } = await import('../../src/client/event-socket.js');
  let errors = 0;
  let received = 0;
  let duplicates = 0;
  const receipts = new Receipts(control);
  const open: EventSocket[] = [];
  let stop!: () => void;
  const stopped = new Promise<void>((r) => (stop = r));
  control.onMessage((m) => {
    if (m?.type === 'stop') stop();
  });
  await Promise.all(
    input.clients.map(async ({ item }) => {
      const got = new Set<number>();
      const socket = await EventSocket.connect({
        base: input.base,
        queueId: item.queue,
        auth: { email: item.creds.email, apiKey: item.creds.apiKey },
        onEvents: (events) => {
          const at = nowAbs();
          for (const e of events) {
            if (e.type !== 'message') continue;
            const id = (e.message as { id: number }).id;
            if (got.has(id)) duplicates++;
            got.add(id);
            receipts.add(id, at);
            received++;
          }
        },
      }).catch(() => null);
      if (!socket) errors++;
      else open.push(socket);
    }),
  );
  control.post({ kind: 'open', count: open.length });
  await stopped;
  await Promise.all(open.map((s) => s.close()));
  return { errors, received, duplicates };
}

export interface GetInput {
  base: string;
  path: string;
  startAt: number;
  endAt: number;
  connections: number[];
}

/** Each connection GETs `path` back to back until endAt (the HTTP ceiling's load); returns the count answered. */
async function getLoops(input: GetInput): Promise<number> {
  let done = 0;
  while (nowAbs() < input.startAt) await new Promise((r) => setTimeout(r, 5));
  await Promise.all(
    input.connections.map(async (i) => {
      const connection = connectionFor(i);
      while (nowAbs() < input.endAt) {
        await request(input.base, 'GET', input.path, { connection });
        done++;
      }
    }),
  );
  return done;
}

export const JOBS = { sendLoops, pollClients, socketClients, getLoops, mixedUsers } satisfies Record<string, (input: never, control: JobControl) => Promise<unknown>>;
export type JobName = keyof typeof JOBS;
