// Per-file wall and CPU time of an ava run: preloaded into each ava worker process, it writes one JSON line file per
// test file into $SUITE_TIMES_DIR when the worker ends (wall from process start, the worker's CPU and that of the
// children it waited for). Summarise with file-times-report.mjs.
//   SUITE_TIMES_DIR=/tmp/times NODE_OPTIONS="--import $PWD/test/tools/file-times.mjs" npx ava dist/test/channels/*.test.js
//   node test/tools/file-times-report.mjs /tmp/times
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';

const out = process.env.SUITE_TIMES_DIR;
let file = null;

/** ava sends its worker the options naming the test file in its first message. */
function find(o, depth = 0) {
  if (!o || typeof o !== 'object' || depth > 5) return null;
  if (typeof o.file === 'string') return o.file;
  for (const v of Object.values(o)) {
    const f = find(v, depth + 1);
    if (f) return f;
  }
  return null;
}

function childCpuSeconds() {
  try {
    const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return (Number(f[13]) + Number(f[14])) / 100;
  } catch {
    return null;
  }
}

if (out && process.send) {
  mkdirSync(out, { recursive: true });
  const onMessage = (m) => {
    file = find(m);
    if (file) process.off('message', onMessage);
  };
  process.on('message', onMessage);
  // When the worker told ava its tests were done: what the process takes after that (`linger`) is handles left open.
  let finished = null;
  const send = process.send.bind(process);
  process.send = (m, ...rest) => {
    if (m?.ava?.type === 'worker-finished') finished = Date.now();
    return send(m, ...rest);
  };
  let written = false;
  const write = () => {
    if (written || !file) return;
    written = true;
    const c = process.cpuUsage();
    writeFileSync(`${out}/${process.pid}.json`, JSON.stringify({ file, start: performance.timeOrigin, end: Date.now(), finished, cpu: (c.user + c.system) / 1e6, child: childCpuSeconds() }));
  };
  process.on('exit', write);
  // ava ends a worker with SIGTERM once its tests are done.
  process.once('SIGTERM', () => {
    write();
    process.exit(143);
  });
}
