// Summary of file-times.mjs records: one line per test file, slowest first (wall s, worker CPU s, children's CPU s,
// and linger: the seconds the worker lived on after its tests were done, when recorded).
import { readdirSync, readFileSync } from 'node:fs';

const dir = process.argv[2];
const rows = readdirSync(dir).map((f) => JSON.parse(readFileSync(`${dir}/${f}`, 'utf8')));
rows.sort((a, b) => b.end - b.start - (a.end - a.start));
let wall = 0;
let cpu = 0;
let child = 0;
let linger = 0;
console.log('   wall    cpu  child linger  file');
for (const r of rows) {
  const w = (r.end - r.start) / 1000;
  const l = r.finished ? (r.end - r.finished) / 1000 : null;
  wall += w;
  cpu += r.cpu;
  child += r.child ?? 0;
  linger += l ?? 0;
  console.log(`${w.toFixed(1).padStart(7)} ${r.cpu.toFixed(1).padStart(6)} ${(r.child ?? 0).toFixed(1).padStart(6)} ${(l === null ? '-' : l.toFixed(1)).padStart(6)}  ${r.file.replace(/.*dist\/test\//, '')}`);
}
console.log(`${rows.length} files: wall ${wall.toFixed(1)} s summed, worker CPU ${cpu.toFixed(1)} s, children ${child.toFixed(1)} s, linger ${linger.toFixed(1)} s`);
