// register: register rate and snapshot latency in a realm of U users (and S channels once channels exist).
import { forEachBounded } from '../lib/bounded.js';
import { request } from '../lib/client.js';
import { sampleAll } from '../lib/server.js';
import { PerSecond, summarize } from '../lib/stats.js';
import { seedUsers } from './seed.js';
import { num, type Scenario } from './types.js';

export const register: Scenario = async (ctx) => {
  const users = num(ctx.options, 'users', ctx.quick ? 50 : 1000);
  const count = num(ctx.options, 'requests', ctx.quick ? 50 : 1000);
  const concurrency = num(ctx.options, 'concurrency', 8);
  const base = ctx.target.url;
  const people = await seedUsers(ctx, users);
  const samples: number[] = [];
  let errors = 0;
  let done = 0;
  // The server's CPU time over the registers alone (seeding aside), each with the deletion of its queue.
  const cpuBefore = sampleAll(ctx.target.pids);
  const started = performance.now();
  const perSecond = new PerSecond(started);
  await forEachBounded(count, concurrency, async (i) => {
    const who = people[i % people.length]!;
    const r = await request(base, 'POST', '/register', { auth: who });
    if (r.status !== 200) {
      errors++;
      return;
    }
    samples.push(r.ms);
    perSecond.add(r.ms);
    await request(base, 'DELETE', '/events', { auth: who, form: { queue_id: r.body.queue_id } });
    if (++done % 100 === 0) ctx.progress(`register ${done}/${count}`);
  });
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = sampleAll(ctx.target.pids);
  const cpuMs = cpuBefore && cpuAfter ? (1000 * (cpuAfter.cpuSeconds - cpuBefore.cpuSeconds)) / Math.max(1, samples.length) : null;
  const latency = summarize(samples);
  const timeline = perSecond.result();
  return {
    throughput: samples.length / seconds,
    latencyMs: latency,
    errors,
    samples,
    timeline: timeline.counts,
    p99Timeline: timeline.p99,
    figures: { users, requests: count, concurrency, ...(cpuMs !== null && { server_cpu_ms_per_register: +cpuMs.toFixed(2) }) },
    target: { description: `median register under 20 ms, at most 3 ms of server CPU per register, for ${users} users`, met: latency.p50 < 20 && (cpuMs === null || cpuMs <= 3) },
  };
};
