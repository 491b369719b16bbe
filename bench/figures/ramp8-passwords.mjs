// A/B of the bench's set-up passwords (issue #22, eighth session, lane ramp): server CPU (all its threads) and wall
// time per POST /users, the old password form against the new one, batches interleaved on one server. Run from the
// repository after `npm run build`: `node bench/figures/ramp8-passwords.mjs USERS INDEX_OFFSET` (100 0, and 100 1600).
import { startTarget, sampleAll } from '../../dist/bench/lib/server.js';
import { request, login } from '../../dist/bench/lib/client.js';
import { plainLetters } from '../../dist/bench/scenarios/seed.js';
const target = await startTarget({ databaseUrl: 'postgres://postgres@127.0.0.1:5432/postgres' });
const owner = await login(target.url, target.owner.email, target.owner.password);
const N = Number(process.argv[2] ?? 100);
const OFFSET = Number(process.argv[3] ?? 0);
const forms = {
  old: (run, stamp, i) => `pw-${run}-${i}`,
  new: (run, stamp, i) => `pw-${plainLetters(stamp)}-${plainLetters(i)}`,
};
let k = 0;
for (let round = 0; round < 5; round++) {
  for (const side of round % 2 ? ['new', 'old'] : ['old', 'new']) {
    const stamp = Date.now() + k;
    const run = `mix${k++}${stamp.toString(36)}`;
    const cpu0 = sampleAll(target.pids).cpuSeconds;
    const t0 = performance.now();
    await Promise.all(Array.from({ length: 16 }, async (_, w) => {
      for (let i = w; i < N; i += 16) {
        const r = await request(target.url, 'POST', '/users', { auth: owner, form: { email: `${run}-${i}@bench.test`, password: forms[side](run, stamp, i + OFFSET), full_name: `Bench User ${i}` } });
        if (r.status !== 200) throw new Error(JSON.stringify(r.body));
      }
    }));
    const wall = (performance.now() - t0) / 1000;
    const cpu = sampleAll(target.pids).cpuSeconds - cpu0;
    console.log(JSON.stringify({ round, side, users: N, wall_s: +wall.toFixed(2), cpu_ms_per_user: +((cpu * 1000) / N).toFixed(1), users_per_s: +(N / wall).toFixed(1), load: (await import('node:os')).loadavg()[0].toFixed(2), at: new Date().toISOString().slice(11, 19) }));
  }
}
await target.stop();
process.exit(0);
