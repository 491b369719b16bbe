// The postgres processes of the embedded database: initdb, a start that waits until it is ready, a stop the way pg_ctl
// stops, and what a crash leaves behind (a postmaster whose owner died, lock files naming a reused PID).
import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PgBinaries } from './embedded-binaries.js';
import { processStart, runsIn, type Account } from './embedded-host.js';

/** The database superuser initdb makes. */
export const SUPERUSER = 'postgres';

/** initdb into a fresh directory beside the final one, renamed when complete: an interrupted first start leaves no
 *  half-made database that looks whole. */
export async function initialise(bins: PgBinaries, pgdata: string, account: Account | null): Promise<void> {
  const making = `${pgdata}.init`;
  rmSync(making, { recursive: true, force: true });
  mkdirSync(making, { mode: 0o700 });
  if (account) chownSync(making, account.uid, account.gid);
  const child = spawnAs(bins.initdb, [
    '-D', dataDirArg(making, account),
    '-U', SUPERUSER,
    '--auth-local=trust',
    '--auth-host=scram-sha-256',
    '--encoding=UTF8',
    '--locale-provider=builtin',
    '--builtin-locale=C.UTF-8',
    // Character classes of the C library's C.UTF-8: the full-text parser must cut "it’s" at the apostrophe, as
    // src/narrow/search.ts does (under a C ctype every non-ASCII character is a letter).
    '--locale=C.UTF-8',
  ], making, account);
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`initdb failed (exit code ${code}): ${output.slice(-2000)}`);
  renameSync(making, pgdata);
}

/**
 * Run as `account` (root's stand-in), the programs start in the directory they work on: the directory is entered
 * before the switch of account, and `-D /proc/self/cwd` names it, so PostgreSQL needs no right to the directories
 * above DATA_DIR (root's home is closed to other accounts).
 */
function dataDirArg(dir: string, account: Account | null): string {
  return account && process.platform === 'linux' ? '/proc/self/cwd' : dir;
}

/** setpriv --pdeathsig: postgres gets SIGINT (a fast, clean shutdown) when this process dies, even by SIGKILL. */
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p));

function spawnAs(program: string, args: string[], cwd: string, account: Account | null): ChildProcess {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' };
  const [file, argv] = SETPRIV ? [SETPRIV, ['--pdeathsig', 'SIGINT', '--', program, ...args]] : [program, args];
  return spawn(file, argv, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], ...(account && { uid: account.uid, gid: account.gid }) });
}

export function postgresArgs(pgdata: string, account: Account | null, settings: Record<string, string>): string[] {
  return ['-D', dataDirArg(pgdata, account), ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])];
}

/** The first start may meet a postgres that is still shutting down, or backends of a killed one still exiting. */
export async function launchWithRetries(bins: PgBinaries, pgdata: string, account: Account | null, args: string[]): Promise<ChildProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await launch(bins, pgdata, account, args);
    } catch (err) {
      if (attempt >= 5) throw err;
      await sleep(500 * attempt);
    }
  }
}

export async function launch(bins: PgBinaries, pgdata: string, account: Account | null, args: string[]): Promise<ChildProcess> {
  await clearLeftovers(pgdata);
  const child = spawnAs(bins.postgres, args, pgdata, account);
  let output = '';
  const collect = (c: Buffer) => {
    if (output.length < 16_000) output += c;
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const first = await Promise.race([waitReady(pgdata, child), exitOf(child)]);
  if (first !== true) {
    throw new Error(`embedded PostgreSQL did not start (${first}): ${output.trim().slice(-2000)} (its log: ${path.join(pgdata, 'log')})`);
  }
  // From here postgres logs to its own files; the pipes only need draining.
  child.stdout!.off('data', collect).resume();
  child.stderr!.off('data', collect).resume();
  return child;
}

/** postmaster.pid names this child and says "ready" (as pg_ctl waits); false after two minutes. */
async function waitReady(pgdata: string, child: ChildProcess): Promise<true | string> {
  const deadline = Date.now() + 120_000;
  while (child.exitCode === null && child.signalCode === null) {
    const lines = readPidFile(pgdata);
    if (lines && Number(lines[0]) === child.pid && lines[7]?.trim() === 'ready') return true;
    if (Date.now() > deadline) {
      child.kill('SIGQUIT');
      return 'not ready after two minutes';
    }
    await sleep(25);
  }
  return 'exited';
}

export function readPidFile(pgdata: string): string[] | null {
  try {
    return readFileSync(path.join(pgdata, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return null;
  }
}

/**
 * Before a start: a postmaster left running by a process that died (its owner is gone, or this is the owner's restart
 * of it) is shut down the way pg_ctl does (SIGINT: transactions in progress roll back, the rest is checkpointed).
 * Lock files naming a process that is not a postgres here (its PID reused after a reboot) are removed, but only when
 * no process at all runs in the directory; PostgreSQL itself handles one naming a PID that is gone.
 */
async function clearLeftovers(pgdata: string): Promise<void> {
  const pid = Number(readPidFile(pgdata)?.[0]);
  if (!pid) return;
  if (runsIn(pid, pgdata)) {
    await shutDown(pid);
    return;
  }
  if (processStart(pid) !== null && process.platform === 'linux' && !anyProcessIn(pgdata)) {
    rmSync(path.join(pgdata, 'postmaster.pid'), { force: true });
    for (const f of readdirSync(pgdata)) if (/^\.s\.PGSQL\.\d+\.lock$/.test(f)) rmSync(path.join(pgdata, f), { force: true });
  }
}

function anyProcessIn(dir: string): boolean {
  return readdirSync('/proc').some((p) => /^\d+$/.test(p) && runsIn(Number(p), dir));
}

/** SIGINT, then SIGQUIT (immediate: crash recovery at the next start) if the fast shutdown takes over a minute. */
export async function shutDown(target: ChildProcess | number): Promise<void> {
  const alive = () => (typeof target === 'number' ? processStart(target) !== null : target.exitCode === null && target.signalCode === null);
  const signal = (s: NodeJS.Signals) => {
    try {
      if (typeof target === 'number') process.kill(target, s);
      else target.kill(s);
    } catch (err) {
      // Gone between the check and the signal: stopped all the same.
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
    }
  };
  for (const [sig, waitMs] of [['SIGINT', 60_000], ['SIGQUIT', 10_000]] as const) {
    if (!alive()) return;
    signal(sig);
    const until = Date.now() + waitMs;
    while (alive() && Date.now() < until) await sleep(20);
  }
  if (alive()) throw new Error('the embedded PostgreSQL does not stop');
}

export function exitOf(child: ChildProcess): Promise<string> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(`exit code ${child.exitCode}, signal ${child.signalCode}`);
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(`exit code ${code}, signal ${signal}`)));
}
