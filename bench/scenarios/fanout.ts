// fanout: N clients long-polling, all subscribed to one channel; time from each send's response to each
// client's receipt of that message.
import os from 'node:os';
import { request } from '../lib/client.js';
import type { PollInput, PollOutput } from '../lib/jobs.js';
import { bucketPercentiles, histogram, scrape } from '../lib/metrics.js';
import { summarize } from '../lib/stats.js';
import { nowAbs, runJobs, slices } from '../lib/workers.js';
import { seedUsers } from './seed.js';
import { num, type Scenario } from './types.js';

export const fanout: Scenario = async (ctx) => {
  const clients = num(ctx.options, 'clients', ctx.quick ? 20 : 1000);
  const messages = num(ctx.options, 'messages', ctx.quick ? 5 : 50);
  const base = ctx.target.url;
  const people = await seedUsers(ctx, clients, 'fan');
  const ids: number[] = [];
  for (const p of people) ids.push((await request(base, 'GET', '/users/me', { auth: p })).body.user_id);
  const channel = `fanout-${Date.now().toString(36)}`;
  const made = await request(base, 'POST', '/channels/create', { auth: ctx.owner, form: { name: channel, subscribers: JSON.stringify(ids) } });
  if (made.status !== 200) throw new Error(`channel: ${JSON.stringify(made.body)}`);
  const queues = await Promise.all(
    people.map(async (p) => (await request(base, 'POST', '/register', { auth: p, form: { event_types: '["message"]', fetch_event_types: '[]' } })).body.queue_id as string),
  );
  // The clients poll on worker threads (--workers); receipts come back as [message ID, absolute time].
  const workers = num(ctx.options, 'workers', Math.min(4, os.cpus().length));
  const sentAt = new Map<number, number>();
  const receivedAt = new Map<number, number[]>();
  let received = 0;
  let errors = 0;
  const jobs = slices(people.map((creds, i) => ({ creds, queue: queues[i]! })), workers).map((part): PollInput => ({ base, clients: part }));
  const pool = runJobs<PollInput, PollOutput>('pollClients', jobs, (m: { kind: string; ids: number[]; at: number }) => {
    if (m.kind !== 'receipts') return;
    for (const id of m.ids) {
      let list = receivedAt.get(id);
      if (!list) receivedAt.set(id, (list = []));
      list.push(m.at);
      received++;
    }
  });
  await new Promise((r) => setTimeout(r, 500));
  const perSecond: number[] = [];
  const sender = people[0]!;
  const DELIVERY = 'palaver_message_delivery_seconds';
  const serverBefore = histogram(await scrape(ctx.target), DELIVERY);
  for (let m = 0; m < messages; m++) {
    const r = await request(base, 'POST', '/messages', { auth: sender, form: { type: 'stream', to: channel, topic: 'fanout', content: `message ${m}` } });
    if (r.status !== 200) errors++;
    else sentAt.set(r.body.id, nowAbs());
    const target = (m + 1) * clients;
    for (let i = 0; i < 200 && received < target; i++) await new Promise((res) => setTimeout(res, 10));
    perSecond.push(received);
    ctx.progress(`fanout: message ${m + 1}/${messages}, ${received} deliveries`);
  }
  const server = bucketPercentiles(serverBefore, histogram(await scrape(ctx.target), DELIVERY));
  pool.broadcast({ type: 'stop' });
  await Promise.all(queues.map((q, i) => request(base, 'DELETE', '/events', { auth: people[i]!, form: { queue_id: q } }).catch(() => null)));
  const outs = await pool.done;
  errors += outs.reduce((a, o) => a + o.errors, 0);
  // A receipt can come before the sender has its own response: counted, as 0 ms.
  const samples: number[] = [];
  let beforeResponse = 0;
  for (const [id, times] of receivedAt) {
    const at = sentAt.get(id);
    if (at === undefined) continue;
    for (const t of times) {
      if (t < at) beforeResponse++;
      samples.push(Math.max(0, t - at));
    }
  }
  const latency = summarize(samples);
  return {
    latencyMs: latency,
    errors,
    samples,
    timeline: perSecond.map((v, i) => v - (perSecond[i - 1] ?? 0)),
    figures: {
      clients,
      messages,
      deliveries: samples.length,
      expected_deliveries: clients * messages,
      // Every sent message reached every client's queue, none twice (deliveries counted per message).
      exactly_once: sentAt.size === messages && [...sentAt.keys()].every((id) => receivedAt.get(id)?.length === clients),
      received_before_send_response: beforeResponse,
      worker_threads: jobs.length,
      // The server's share: message event published (after commit) → poll answered, from its /metrics.
      'server publish→answer p50/p95/p99 ms (≤ bucket)': server && server.count ? `${server.p50} / ${server.p95} / ${server.p99}` : 'n/a',
      server_deliveries_timed: server?.count ?? 'n/a',
    },
    target: { description: `p99 under 50 ms from send response to receipt, ${clients} polling clients`, met: latency.p99 < 50 && samples.length === clients * messages },
  };
};
