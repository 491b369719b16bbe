// The send job of a built tree (its dist/bench/lib/jobs.js sendLoops on its worker threads) against batch-server.mjs or
// the bare ceiling server: the generator's CPU (all threads) per message over the window, from the window's start.
// usage: node gencost.mjs TREE BASE SECONDS SENDERS WORKERS
const [tree, base, seconds, senders, workers] = process.argv.slice(2);
const { runWindowJobs, slices } = await import(`${tree}/dist/bench/lib/workers.js`);
const items = Array.from({ length: +senders }, (_, s) => ({ creds: { email: `bench-snd-${s}@bench.test`, apiKey: 'aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI' }, to: `send-mfx1k2-${Math.floor(s / 10)}` }));
const jobs = slices(items, +workers).map((part) => ({ base, senders: part }));
let before;
const pool = runWindowJobs('sendLoops', jobs, +seconds);
void pool.window.then(() => (before = process.cpuUsage()));
const outs = await pool.done;
const cpu = process.cpuUsage(before);
const n = outs.reduce((a, o) => a + o.samples.length, 0);
const errors = outs.reduce((a, o) => a + o.errors, 0);
console.log(JSON.stringify({ tree, n, errors, us: (cpu.user + cpu.system) / n, sys: cpu.system / n, rate: n / +seconds }));
