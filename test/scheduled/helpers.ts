// Scheduled-message tests: a server whose delivery actor runs on a simulated clock, and small request helpers.
import { SimulatedClock } from 'xstate';
import type { DeliveryClock } from '../../src/actors/scheduled-delivery.js';
import type { Credentials } from '../helpers/http.js';
import { startTestServer, type TestServer, type TestServerOptions } from '../helpers/server.js';

export interface ClockedServer {
  s: TestServer;
  clock: SimulatedClock;
  /** Seconds on the server's clock. */
  now(): number;
  /** Moves the clock and waits until every delivery now due has finished. */
  advance(seconds: number): Promise<void>;
  settled(): Promise<void>;
}

export function deliveryClock(clock: SimulatedClock): DeliveryClock {
  return { now: () => clock.now(), setTimeout: (fn, ms) => clock.setTimeout(fn, ms), clearTimeout: (id) => clock.clearTimeout(id as number) };
}

/** Starts a server whose scheduled-delivery clock starts at `startMs` (now by default) and moves only when told. */
export async function startClockedServer(opts: TestServerOptions & { startMs?: number } = {}): Promise<ClockedServer> {
  const clock = new SimulatedClock();
  clock.set(opts.startMs ?? Date.now());
  const s = await startTestServer({ ...opts, scheduledDelivery: { clock: deliveryClock(clock), tuning: { retryMs: 1_000, maxAttempts: 3 } } });
  const settled = () => s.server.services.scheduled.settled();
  await settled();
  return {
    s,
    clock,
    now: () => Math.floor(clock.now() / 1000),
    settled,
    async advance(seconds: number) {
      clock.increment(seconds * 1000);
      await settled();
    },
  };
}

export function schedule(s: TestServer, as: Credentials, form: Record<string, string>) {
  return s.client.as(as).post('/scheduled_messages', { form });
}

export async function scheduleOk(s: TestServer, as: Credentials, form: Record<string, string>): Promise<number> {
  const r = await schedule(s, as, form);
  if (r.status !== 200) throw new Error(`scheduling failed: ${r.text}`);
  return r.json.scheduled_message_id as number;
}

export async function scheduledList(s: TestServer, as: Credentials): Promise<any[]> {
  const r = await s.client.as(as).get('/scheduled_messages');
  if (r.status !== 200) throw new Error(`listing failed: ${r.text}`);
  return r.json.scheduled_messages;
}

/** The scheduled row as stored (delivery marker, failure reason). */
export function storedRow(s: TestServer, id: number) {
  return s.server.services.db.one('SELECT delivered, delivered_message_id, failed, failure_message FROM scheduled_messages WHERE id = $1', [id]);
}

/** Messages a sender has sent with this exact content. */
export async function sentWith(s: TestServer, senderId: number, content: string): Promise<{ id: number; stream_id: number | null; topic: string }[]> {
  const rows = await s.server.services.db.any('SELECT id, stream_id, topic FROM messages WHERE sender_id = $1 AND content = $2 ORDER BY id', [
    senderId,
    content,
  ]);
  return rows.map((r) => ({ id: Number(r.id), stream_id: r.stream_id, topic: r.topic }));
}
