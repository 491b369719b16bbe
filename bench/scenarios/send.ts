// send: many senders posting to channels of a given size; durable messages per second (each answered after
// its transaction committed).
import os from 'node:os';
import { request } from '../lib/client.js';
import type { SendInput, SendOutput } from '../lib/jobs.js';
import { nowAbs, runWindowJobs, slices } from '../lib/workers.js';
import { backendCpu, backendCpuSince } from '../lib/backend-cpu.js';
import { closeDatabase, openDatabase, type BenchDb } from '../lib/database.js';
import { scrape, sumCount } from '../lib/metrics.js';
import { sampleAll } from '../lib/server.js';
import { PerSecond, summarize } from '../lib/stats.js';
import { PIPELINE_DEPTH } from '../../src/actors/realm.machine.js';
import { databaseCeiling, type DbCeiling } from './db-ceiling.js';
import { seedUsers } from './seed.js';
import { num, type Scenario } from './types.js';

export const send: Scenario = async (ctx) => {
  const senders = num(ctx.options, 'senders', ctx.quick ? 4 : 32);
  const channelSize = num(ctx.options, 'channel-size', 10);
  const seconds = num(ctx.options, 'duration', ctx.quick ? 3 : 20);
  const base = ctx.target.url;
  const people = await seedUsers(ctx, Math.max(senders, channelSize), 'snd');
  const ids = people.map((p) => p.userId);
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
  const jobs = slices(
    Array.from({ length: senders }, (_, s) => ({ creds: people[s % people.length]!, to: channels[Math.floor(s / channelSize) % channels.length]! })),
    workers,
  ).map((part) => ({ base, senders: part }));
  let startAt = Infinity;
  // Where the time and CPU of the load go: the server's own histograms, and the CPU of the server, of the
  // database's backends and of this load generator (its worker threads included) over the window alone, read when it
  // starts: after the warm-up, in which the senders already send (the load generator's threads compile their hot code
  // in it, about 0.3 s of CPU each, and the server warms up too), and after the worker threads started.
  const local = ctx.target.databaseUrl || ctx.target.dataDir ? openDatabase(ctx.target, 1) : null;
  // Backends' CPU is read from this machine's /proc: only for a database on it.
  const monitor = local && (ctx.target.dataDir || /^(localhost|127\.|\[::1\])/.test(new URL(ctx.target.databaseUrl!).hostname)) ? local : null;
  // 10 s: V8 optimizes by calls, not time; on a slow machine the batch path was still being optimized 20 s in at
  // ~500 msg/s, and a 2 s warm-up left its compilation in the window (bench/README.md, ninth session, lane sendcpu).
  const warmup = num(ctx.options, 'warmup', ctx.quick ? 0.5 : 10);
  const pool = runWindowJobs<SendInput, SendOutput>('sendLoops', jobs, seconds, undefined, Math.max(50, warmup * 1000));
  const before = pool.window.then(async (w) => {
    startAt = w.startAt;
    await new Promise((r) => setTimeout(r, Math.max(0, w.startAt - nowAbs())));
    const benchCpu = process.cpuUsage();
    const serverCpu = sampleAll(ctx.target.pids);
    return { benchCpu, serverCpu, metrics: await scrape(ctx.target), dbCpu: monitor ? await backendCpu(monitor) : null };
  });
  const progress = setInterval(() => ctx.progress(`send: ${Math.max(0, Math.round((nowAbs() - startAt) / 1000))}/${seconds} s on ${jobs.length} worker threads`), 1000);
  const outs = await pool.done.finally(() => clearInterval(progress));
  const { benchCpu: benchCpuBefore, serverCpu: serverCpuBefore, metrics: metricsBefore, dbCpu: dbCpuBefore } = await before;
  const benchCpu = process.cpuUsage(benchCpuBefore);
  const dbCpu = monitor && dbCpuBefore ? backendCpuSince(dbCpuBefore, await backendCpu(monitor)) : null;
  const serverCpuAfter = sampleAll(ctx.target.pids);
  const metricsAfter = await scrape(ctx.target);
  const samples = outs.flatMap((o) => o.samples);
  const errors = outs.reduce((a, o) => a + o.errors, 0);
  const perSecond = new PerSecond();
  for (const o of outs) o.samples.forEach((ms, i) => perSecond.add(ms, o.seconds[i]));
  const timeline = perSecond.result();
  const elapsed = (nowAbs() - (await pool.window).startAt) / 1000;
  const throughput = samples.length / elapsed;
  // The realm actor's write transactions during the load (group commit): how many, and writes per transaction.
  const batches = between(metricsBefore, metricsAfter, 'palaver_realm_write_batch_size');
  const mean = (name: string, labels?: RegExp) => meanBetween(metricsBefore, metricsAfter, name, labels);
  const perMessage = (seconds: number) => Math.round((seconds * 1e6) / Math.max(1, samples.length));
  const clientMean = samples.reduce((a, b) => a + b, 0) / Math.max(1, samples.length);
  const serverRequest = mean('palaver_http_request_duration_seconds', /method="POST".*route="[^"]*\/messages"/);
  const mailbox = mean('palaver_realm_command_wait_seconds', /kind="messages\.send"/);
  const batch = mean('palaver_realm_batch_seconds', /kind="messages\.send"/);
  const transaction = mean('palaver_realm_write_batch_duration_seconds');
  const batchSeconds = between(metricsBefore, metricsAfter, 'palaver_realm_batch_seconds', /kind="messages\.send"/);
  const serverCpu = serverCpuBefore && serverCpuAfter ? serverCpuAfter.cpuSeconds - serverCpuBefore.cpuSeconds : null;
  const cpuPerMessage = {
    ...(serverCpu !== null ? { server: perMessage(serverCpu) } : {}),
    ...(dbCpu !== null ? { database: perMessage(dbCpu) } : {}),
    load_generator: perMessage((benchCpu.user + benchCpu.system) / 1e6),
  };
  const cores = os.cpus().length;
  const cpuSum = Object.values(cpuPerMessage).reduce((a, b) => a + b, 0);
  // The database ceiling, after the load: the same write straight into this run's database.
  const ceilingSeconds = num(ctx.options, 'db-ceiling-seconds', ctx.quick ? 1 : 5);
  let db: (DbCeiling & { cpuPerMessage: number | null }) | null = null;
  // The same ceiling with the server's own shape: its mean writes per transaction, on as many connections as its
  // pipeline holds batches (REALM_PIPELINE_DEPTH, 4 by default), to tell what the transaction size alone costs.
  let matched: (DbCeiling & { cpuPerMessage: number | null }) | null = null;
  if (ceilingSeconds > 0 && local) {
    ctx.progress('send: measuring the database ceiling');
    const channelId = (await request(base, 'GET', '/get_stream_id', { auth: ctx.owner, query: { stream: channels[0]! } })).body.stream_id as number;
    const recipients = [...new Set(ids.slice(0, channelSize))];
    const where = { senderId: ids[0]!, channelId, recipients };
    db = await ceilingWithCpu(monitor, ctx, where, { seconds: ceilingSeconds, clients: num(ctx.options, 'db-clients', 8), perTransaction: num(ctx.options, 'db-batch', 100) });
    if (batches && batches.count > 0 && ctx.options['db-matched'] !== 0) {
      const perTransaction = Math.max(1, Math.round(batches.sum / batches.count));
      const clients = num(ctx.options, 'db-matched-clients', Number(process.env.REALM_PIPELINE_DEPTH ?? PIPELINE_DEPTH));
      matched = await ceilingWithCpu(monitor, ctx, where, { seconds: ceilingSeconds, clients, perTransaction });
    }
  }
  if (local) await closeDatabase(local);
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
      warmup_seconds: warmup,
      messages: samples.length,
      ...(batches && batches.count > 0 ? { write_transactions: batches.count, writes_per_transaction: +(batches.sum / batches.count).toFixed(1) } : {}),
      ...(db
        ? {
            db_ceiling_messages_per_second: Math.round(db.messagesPerSecond),
            db_ceiling_settings: `${db.clients} connections, ${db.perTransaction} messages × ${db.recipients} user_messages rows per transaction`,
            ratio_to_db_ceiling: +(throughput / db.messagesPerSecond).toFixed(3),
            ...(db.cpuPerMessage !== null ? { db_ceiling_database_cpu_us_per_message: db.cpuPerMessage } : {}),
          }
        : {}),
      ...(matched
        ? {
            db_ceiling_matched_messages_per_second: Math.round(matched.messagesPerSecond),
            db_ceiling_matched_settings: `${matched.clients} connections, ${matched.perTransaction} messages per transaction (the server's mean)`,
            ratio_to_db_ceiling_matched: +(throughput / matched.messagesPerSecond).toFixed(3),
            ...(matched.cpuPerMessage !== null ? { db_ceiling_matched_database_cpu_us_per_message: matched.cpuPerMessage } : {}),
          }
        : {}),
      // Where a sender's round trip goes (means, ms): the client's whole wait, the server's request (from its HTTP
      // observer), the command's wait in the realm's mailbox, its batch from being taken to answered, and the
      // transaction (BEGIN to COMMIT answered) inside that batch. Batches in flight: the batches' time over the load.
      client_mean_ms: +clientMean.toFixed(2),
      ...(serverRequest !== null ? { server_request_mean_ms: serverRequest } : {}),
      ...(mailbox !== null ? { mailbox_wait_mean_ms: mailbox } : {}),
      ...(batch !== null ? { batch_mean_ms: batch } : {}),
      ...(transaction !== null ? { transaction_mean_ms: transaction } : {}),
      ...(batchSeconds ? { batches_in_flight_mean: +(batchSeconds.sum / elapsed).toFixed(2) } : {}),
      // CPU over the load alone, µs per message, and what the machine's cores could carry at that cost.
      ...Object.fromEntries(Object.entries(cpuPerMessage).map(([k, v]) => [`${k}_cpu_us_per_message`, v])),
      cpu_bound_messages_per_second: Math.round((cores * 1e6) / Math.max(1, cpuSum)),
      ...(db ? { cpu_bound_ratio_to_db_ceiling: +((cores * 1e6) / Math.max(1, cpuSum) / db.messagesPerSecond).toFixed(3) } : {}),
    },
    target: { description: '10,000 durable messages per second to 10-subscriber channels', met: throughput >= 10_000 },
  };
};

/** A histogram's increase between two reads (labelled series matching `labels`, or the unlabelled one). */
function between(before: string | null, after: string | null, name: string, labels?: RegExp): { sum: number; count: number } | null {
  const read = (text: string | null) => sumCount(text, name, labels);
  const a = read(after);
  if (!a) return null;
  const b = read(before) ?? { sum: 0, count: 0 };
  return { sum: a.sum - b.sum, count: a.count - b.count };
}

/** The mean (ms) of the observations between two reads of a histogram, or null when there were none. */
function meanBetween(before: string | null, after: string | null, name: string, labels?: RegExp): number | null {
  const d = between(before, after, name, labels);
  return d && d.count > 0 ? +((1000 * d.sum) / d.count).toFixed(2) : null;
}

/** The database ceiling, with the CPU its backends spent per message. */
async function ceilingWithCpu(
  monitor: BenchDb | null,
  ctx: Parameters<Scenario>[0],
  where: { senderId: number; channelId: number; recipients: number[] },
  opts: { seconds: number; clients: number; perTransaction: number },
): Promise<DbCeiling & { cpuPerMessage: number | null }> {
  const result = await databaseCeiling(ctx.target, where, { ...opts, ...(monitor && { monitor }) });
  const messages = result.messagesPerSecond * result.seconds;
  return { ...result, cpuPerMessage: messages > 0 && result.databaseCpuSeconds !== null ? Math.round((result.databaseCpuSeconds * 1e6) / messages) : null };
}
