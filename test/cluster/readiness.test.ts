// Cluster mode: /health/ready follows the NATS connection. A process cut off from NATS cannot reach realm owners,
// replicate or serve forwarded polls, so load balancers must stop sending it traffic until it reconnects.
import test from 'ava';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../bench/lib/nats.js';
import { startCluster, type TestCluster } from '../helpers/cluster.js';

let cluster: TestCluster;

test.before(async () => {
  // NATS_URL names a free port: ensureNats starts a server of this file's own, so stopping it troubles nobody else.
  process.env.NATS_URL = `nats://127.0.0.1:${await freePort()}`;
  cluster = await startCluster(1);
});

test.after.always(async () => {
  await cluster?.stop();
});

async function readiness(): Promise<{ status: number; cluster: { ok: boolean; detail?: string } }> {
  const r = await cluster.nodes[0]!.client.get('/health/ready', { root: true });
  return { status: r.status, cluster: r.json.checks.cluster };
}

async function until(want: number): Promise<{ status: number; cluster: { ok: boolean; detail?: string } }> {
  let r = await readiness();
  for (const deadline = Date.now() + 20_000; r.status !== want && Date.now() < deadline; r = await readiness()) await sleep(100);
  return r;
}

test('readiness fails while NATS is down and comes back once the process reconnected', async (t) => {
  t.is((await until(200)).status, 200);
  const natsPort = Number(new URL(cluster.nats.url).port);
  await cluster.nats.stop();
  const down = await until(503);
  t.is(down.status, 503);
  t.false(down.cluster.ok);
  t.regex(down.cluster.detail ?? '', /NATS disconnected/);
  // The same address again: the client reconnects, and the process is ready again.
  const again = spawn('nats-server', ['-a', '127.0.0.1', '-p', String(natsPort)], { stdio: 'ignore' });
  try {
    const up = await until(200);
    t.is(up.status, 200);
    t.true(up.cluster.ok);
  } finally {
    again.kill('SIGTERM');
  }
});
