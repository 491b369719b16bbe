// NATS for a cluster: the server at NATS_URL (or 127.0.0.1:4222) when it answers, else nats-server from PATH started
// with JetStream on a free port (Debian package nats-server), stopped with stop().
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

function reachable(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host, port }, () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
    s.setTimeout(1000, () => {
      s.destroy();
      resolve(false);
    });
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

export interface Nats {
  url: string;
  stop(): Promise<void>;
}

/**
 * A NATS server to use: the running one, or nats-server from PATH started for this test file. `maxPayload`: always a
 * server of this file's own, whose messages carry at most that many bytes (NATS's default is 1 MiB).
 */
export async function ensureNats(opts: { maxPayload?: number } = {}): Promise<Nats> {
  const url = process.env.NATS_URL || 'nats://127.0.0.1:4222';
  const u = new URL(url);
  if (opts.maxPayload === undefined && (await reachable(u.hostname, Number(u.port || 4222)))) return { url, stop: async () => undefined };
  const port = await freePort();
  const storeDir = mkdtempSync(path.join(tmpdir(), 'palaver-nats-'));
  const args = ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', storeDir];
  if (opts.maxPayload !== undefined) {
    // max_payload has no command-line flag: a configuration file sets it.
    const conf = path.join(storeDir, 'nats.conf');
    writeFileSync(conf, `max_payload: ${opts.maxPayload}\n`);
    args.push('-c', conf);
  }
  const child = spawn('nats-server', args, { stdio: 'ignore' });
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  child.on('error', () => undefined);
  for (const deadline = Date.now() + 20_000; !(await reachable('127.0.0.1', port)); await sleep(100)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error('nats-server did not start (is it on PATH? Debian package nats-server)');
  }
  return {
    url: `nats://127.0.0.1:${port}`,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
}
