// send: many senders posting to channels of a given size; durable messages per second (each answered after
// its transaction committed).
import os from 'node:os';
import { request } from '../lib/client.js';
import type { SendInput, SendOutput } from '../lib/jobs.js';
import { nowAbs, runJobs, slices } from '../lib/workers.js';
import { scrape, sumCount } from '../lib/metrics.js';
import { sampleAll } from '../lib/server.js';
import { PerSecond, summarize } from '../lib/stats.js';
import { databaseCeiling, type DbCeiling } from './db-ceiling.js';
import { seedUsers } from './seed.js';
import { num, type Scenario } from './types.js';

export const send: Scenario = async (ctx) => {
  const senders = num(ctx.options, 'senders', ctx.quick ? 4 : 32);
  const channelSize = num(ctx.options, 'channel-size', 10);
  const seconds = num(ctx.options, 'duration', ctx.quick ? 3 : 20);
  const base = ctx.target.url;
  const people = await seedUsers(ctx, Math.max(senders, channelSize), 'snd');
  const ids: number[] = [];
  for (const p of people) ids.push((await request(base, 'GET', '/users/me', { auth: p })).body.user_id);
  const channels: string[] = [];
  for (let c = 0; c < Math.ceil(senders / channelSize); c++) {
    const name = `send-${Date.now().toString(36)}-${c}`;
    const members = ids.slice(c * channelSize, c * channelSize + channelSize);
    while (members.length < channelSize) members.push(ids[members.length % ids.length]!);
    await request(base, 'POST', '/channels/create', { auth: ctx.owner, form: { name, subscribers: JSON.stringify([...new Set(members)]) } });
    channels.push(name);
  }
  // The senders run on worker threads (--workers), so the load generator is not one event loop.
  const workers = num(ctx.options, 'workers', Math.min(4, os.cpus().length));
  const startAt = nowAbs() + 200;
  const endAt = startAt + seconds * 1000;
  const jobs = slices(
    Array.from({ length: senders }, (_, s) => ({ creds: people[s % people.length]!, to: channels[Math.floor(s / channelSize) % channels.length]! })),
    workers,
  ).map((part): SendInput => ({ base, startAt, endAt, senders: part }));
  const progress = setInterval(() => ctx.progress(`send: ${Math.max(0, Math.round((nowAbs() - startAt) / 1000))}/${seconds} s on ${jobs.length} worker threads`), 1000);
  const BATCH_SIZE = 'palaver_realm_write_batch_size';
  const batchesBefore = sumCount(await scrape(ctx.target), BATCH_SIZE);
  // Server CPU over the load alone (not the seeding or the ceiling after it), every process of the target summed.
  const cpuBefore = sampleAll(ctx.target.pids);
  const outs = await runJobs<SendInput, SendOutput>('sendLoops', jobs).done.finally(() => clearInterval(progress));
  const cpuAfter = sampleAll(ctx.target.pids);
  const samples = outs.flatMap((o) => o.samples);
  const errors = outs.reduce((a, o) => a + o.errors, 0);
  const perSecond = new PerSecond();
  for (const o of outs) o.samples.forEach((ms, i) => perSecond.add(ms, o.seconds[i]));
  const timeline = perSecond.result();
  const elapsed = (nowAbs() - startAt) / 1000;
  const throughput = samples.length / elapsed;
  // The realm actor's write transactions during the load (group commit): how many, and writes per transaction.
  const batchesAfter = sumCount(await scrape(ctx.target), BATCH_SIZE);
  const batches = batchesAfter && batchesBefore ? { count: batchesAfter.count - batchesBefore.count, writes: batchesAfter.sum - batchesBefore.sum } : null;
  // The database ceiling, after the load: the same write straight into this run's database.
  const ceilingSeconds = num(ctx.options, 'db-ceiling-seconds', ctx.quick ? 1 : 5);
  let db: DbCeiling | null = null;
  if (ceilingSeconds > 0 && (ctx.target.databaseUrl || ctx.target.dataDir)) {
    ctx.progress('send: measuring the database ceiling');
    const channelId = (await request(base, 'GET', '/get_stream_id', { auth: ctx.owner, query: { stream: channels[0]! } })).body.stream_id as number;
    const recipients = [...new Set(ids.slice(0, channelSize))];
    db = await databaseCeiling(ctx.target, { senderId: ids[0]!, channelId, recipients }, {
      seconds: ceilingSeconds,
      clients: num(ctx.options, 'db-clients', 8),
      perTransaction: num(ctx.options, 'db-batch', 100),
    });
  }
  return {
    throughput,
    latencyMs: summarize(samples),
    errors,
    samples,
    timeline: timeline.counts,
    p99Timeline: timeline.p99,
    figures: {
      senders,
      worker_threads: jobs.length,
      channel_size: channelSize,
      seconds,
      messages: samples.length,
      ...(cpuBefore && cpuAfter && samples.length > 0
        ? {
            server_cpu_us_per_message: +((1e6 * (cpuAfter.cpuSeconds - cpuBefore.cpuSeconds)) / samples.length).toFixed(1),
            server_kernel_us_per_message: +((1e6 * (cpuAfter.systemSeconds - cpuBefore.systemSeconds)) / samples.length).toFixed(1),
          }
        : {}),
      ...(batches && batches.count > 0 ? { write_transactions: batches.count, writes_per_transaction: +(batches.writes / batches.count).toFixed(1) } : {}),
      ...(db
        ? {
            db_ceiling_messages_per_second: Math.round(db.messagesPerSecond),
            db_ceiling_settings: `${db.clients} connections, ${db.perTransaction} messages × ${db.recipients} user_messages rows per transaction`,
            ratio_to_db_ceiling: +(throughput / db.messagesPerSecond).toFixed(3),
          }
        : {}),
    },
    target: { description: '10,000 durable messages per second to 10-subscriber channels', met: throughput >= 10_000 },
  };
};
