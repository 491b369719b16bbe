// What the embedded PostgreSQL needs from the operating system: an unprivileged account to run it when Palaver runs as
// root (PostgreSQL refuses root), and whether a process recorded in a file is still the one that wrote it.
import { execFile } from 'node:child_process';
import { readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Account {
  name: string;
  uid: number;
  gid: number;
}

/** null when this process is not root (PostgreSQL then runs as this account); else `name`, created when missing. */
export async function databaseAccount(name: string): Promise<Account | null> {
  if (process.getuid?.() !== 0) return null;
  const found = await lookup(name);
  if (found) return found;
  try {
    await run('useradd', ['--system', '--user-group', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', name]);
  } catch (err) {
    // Another process may have created it at the same moment.
    const raced = await lookup(name);
    if (raced) return raced;
    throw new Error(
      `PostgreSQL does not run as root, and the account ${name} to run it could not be created (${(err as Error).message.trim()}); ` +
        'create it, name an existing unprivileged account in EMBEDDED_DB_OS_USER, or run Palaver as an ordinary user',
    );
  }
  const made = await lookup(name);
  if (!made) throw new Error(`the account ${name} was created but cannot be looked up`);
  return made;
}

async function lookup(name: string): Promise<Account | null> {
  try {
    const [u, g] = await Promise.all([run('id', ['-u', name]), run('id', ['-g', name])]);
    return { name, uid: Number(u.stdout), gid: Number(g.stdout) };
  } catch {
    return null;
  }
}

/** A process's identity that survives PID reuse: its start time (Linux), or 0 where /proc is missing; null when gone
 *  (a zombie too: an exited process its parent has not reaped yet). */
export function processStart(pid: number): number | null {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return null;
  }
  try {
    // Field 22 of /proc/<pid>/stat, after the parenthesized command name (which may hold spaces).
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [state, ...rest] = fields.slice(fields.lastIndexOf(')') + 2).split(' ');
    return state === 'Z' ? null : Number(rest[18]);
  } catch {
    return 0;
  }
}

/** Whether `pid` is a live process working in `dir` (a postmaster and its backends run in their data directory). */
export function runsIn(pid: number, dir: string): boolean {
  if (processStart(pid) === null) return false;
  try {
    return readlinkSync(`/proc/${pid}/cwd`) === realpathSync(dir);
  } catch (err) {
    // Without /proc, a live PID is taken at its word; a process of another account cannot be ours.
    return (err as NodeJS.ErrnoException).code === 'ENOENT' && !process.platform.startsWith('linux');
  }
}
