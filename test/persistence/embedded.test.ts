// The embedded PostgreSQL: durable settings, a private unix socket and no TCP, several connections at once, and the
// starts that follow a crash (a stale lock file, a postgres left running by an owner that died) or an older Palaver.
import test from 'ava';
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createDatabase, type Connection } from '../../src/persistence/db.js';
import { pgBinaries } from '../../src/persistence/embedded-binaries.js';
import { processStart } from '../../src/persistence/embedded-host.js';
import { findRunningEmbedded, PgliteDataError, startEmbedded } from '../../src/persistence/embedded.js';

const run = promisify(execFile);

function scratchDir(t: { teardown(fn: () => void): void }): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'palaver-embedded-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function query<T>(connection: Connection, fn: (db: ReturnType<typeof createDatabase>['db']) => Promise<T>): Promise<T> {
  const database = createDatabase(connection, { max: 8 });
  try {
    return await fn(database.db);
  } finally {
    await database.close();
  }
}

function postmasterPid(dataDir: string): number {
  return Number(readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
}

test('durable settings, a unix socket in DATA_DIR only, and several connections at once', async (t) => {
  const dir = scratchDir(t);
  const pg = await startEmbedded(dir);
  try {
    t.is(pg.connection.host, path.join(dir, 'postgres'));
    t.is(statSync(path.join(dir, 'postgres')).mode & 0o777, 0o700, 'the socket directory is private');
    t.true(statSync(path.join(dir, 'postgres', '.s.PGSQL.5432')).isSocket());
    const settings = await query(pg.connection, async (db) => {
      const show = async (name: string) => (await db.one(`SHOW ${name}`))[name] as string;
      return { fsync: await show('fsync'), synchronous_commit: await show('synchronous_commit'), listen_addresses: await show('listen_addresses'), full_page_writes: await show('full_page_writes') };
    });
    t.deepEqual(settings, { fsync: 'on', synchronous_commit: 'on', listen_addresses: '', full_page_writes: 'on' });
    // Full-text search cuts words where the server's search rules do (src/narrow/search.ts): under a C ctype every
    // non-ASCII character would be a letter, so "it’s" would be one word and a search for "s" would miss it.
    const words = await query(pg.connection, (db) => db.one(`SELECT to_tsvector('simple', 'it’s café') AS v`));
    t.is(words.v, "'café':3 'it':1 's':2");
    // Eight sessions run at the same time: each sleeps while holding its own backend.
    const pids = await query(pg.connection, (db) => Promise.all(Array.from({ length: 8 }, () => db.task((c) => c.one('SELECT pg_backend_pid() AS pid, pg_sleep(0.2)').then((r) => r.pid as number)))));
    t.is(new Set(pids).size, 8);
    t.deepEqual(await findRunningEmbedded(dir), pg.connection, 'the admin CLI finds it while it runs');
  } finally {
    await pg.stop();
  }
  t.is(await findRunningEmbedded(dir), null);
  t.false(existsSync(path.join(dir, 'postgres', 'postmaster.pid')), 'stopped cleanly');
});

test('a second process does not start a database that is in use', async (t) => {
  const dir = scratchDir(t);
  const pg = await startEmbedded(dir);
  try {
    const module = new URL('../../src/persistence/embedded.js', import.meta.url).href;
    const err = await run(process.execPath, ['--input-type=module', '-e', `import { startEmbedded } from '${module}'; await startEmbedded(${JSON.stringify(dir)});`]).catch((e) => e);
    t.regex(err.stderr, new RegExp(`in use by process ${process.pid}`));
  } finally {
    await pg.stop();
  }
});

test('a stale postmaster.pid naming a live process that is not postgres (PID reused) does not block the start', async (t) => {
  const dir = scratchDir(t);
  let pg = await startEmbedded(dir);
  await query(pg.connection, (db) => db.none('CREATE TABLE kept (n int); INSERT INTO kept VALUES (42)'));
  const pidFile = readFileSync(path.join(dir, 'postgres', 'postmaster.pid'), 'utf8');
  await pg.stop();
  const stranger = spawn('sleep', ['30']);
  t.teardown(() => stranger.kill());
  writeFileSync(path.join(dir, 'postgres', 'postmaster.pid'), pidFile.replace(/^\d+/, String(stranger.pid)));
  pg = await startEmbedded(dir);
  try {
    t.is(await query(pg.connection, (db) => db.one('SELECT n FROM kept', [], (r) => r.n)), 42);
    t.is(stranger.exitCode, null, 'the process the stale file named is left alone');
  } finally {
    await pg.stop();
  }
});

test('a postgres left running by an owner that died is shut down cleanly and replaced, its data kept', async (t) => {
  const dir = scratchDir(t);
  let pg = await startEmbedded(dir);
  await query(pg.connection, (db) => db.none('CREATE TABLE kept (n int); INSERT INTO kept VALUES (7)'));
  const info = JSON.parse(readFileSync(path.join(dir, 'embedded-db.json'), 'utf8'));
  await pg.stop();
  // The orphan: postgres started on the data directory by hand, with no parent that would stop it, recorded as run
  // by an owner that has exited.
  const pgdata = path.join(dir, 'postgres');
  const { uid, gid } = statSync(pgdata);
  const asOther = uid !== process.getuid?.();
  const orphan = spawn((await pgBinaries()).postgres, ['-D', asOther ? '/proc/self/cwd' : pgdata, '-c', 'listen_addresses=', '-c', 'unix_socket_directories=.'], {
    cwd: pgdata,
    detached: true,
    stdio: 'ignore',
    ...(asOther && { uid, gid }),
  });
  orphan.unref();
  t.teardown(() => void (processStart(orphan.pid!) !== null && process.kill(orphan.pid!, 'SIGQUIT')));
  const pidFile = () => (existsSync(path.join(pgdata, 'postmaster.pid')) ? readFileSync(path.join(pgdata, 'postmaster.pid'), 'utf8') : '');
  while (!/\nready/.test(pidFile())) await new Promise((r) => setTimeout(r, 25));
  const gone = spawn(process.execPath, ['-e', '']);
  await new Promise((r) => gone.once('exit', r));
  writeFileSync(path.join(dir, 'embedded-db.json'), JSON.stringify({ ...info, owner: { pid: gone.pid, start: 1 } }));

  pg = await startEmbedded(dir);
  try {
    t.is(processStart(orphan.pid!), null, 'the orphan was stopped');
    t.not(postmasterPid(dir), orphan.pid);
    t.is(await query(pg.connection, (db) => db.one('SELECT n FROM kept', [], (r) => r.n)), 7);
    const logFile = readFileSync(path.join(pgdata, 'current_logfiles'), 'utf8').trim().split(' ')[1]!;
    const lastStart = readFileSync(path.join(pgdata, logFile), 'utf8').split('starting PostgreSQL').pop()!;
    t.regex(lastStart, /database system was shut down at/, 'the orphan was shut down cleanly (no crash recovery)');
  } finally {
    await pg.stop();
  }
});

test('a data directory of the PGlite version is left untouched, with a message saying how to move its data', async (t) => {
  const dir = scratchDir(t);
  mkdirSync(path.join(dir, 'pglite'));
  const err = await t.throwsAsync(startEmbedded(dir), { instanceOf: PgliteDataError });
  t.regex(err!.message, /pg_dump -h .* -p 5432 -U postgres/);
  t.regex(err!.message, /move .*pglite elsewhere/);
  t.false(existsSync(path.join(dir, 'postgres')));
});

test('EMBEDDED_DB_PORT: also on 127.0.0.1, for the postgres user with its password only', async (t) => {
  const dir = scratchDir(t);
  const password = 'a-long-enough-secret';
  // A port of this suite's own range (10800-10899): two runs of this test at once would collide.
  const port = 10850;
  const pg = await startEmbedded(dir, { tcp: { port, password } });
  try {
    t.is(await query(pg.connection, (db) => db.one('SHOW listen_addresses', [], (r) => r.listen_addresses)), '127.0.0.1');
    const over = (pw: string) => query(`postgres://postgres:${pw}@127.0.0.1:${port}/postgres`, (db) => db.one('SELECT 1 AS one', [], (r) => r.one));
    t.is(await over(password), 1);
    await t.throwsAsync(over('wrong-password-here'), { message: /password authentication failed/ });
  } finally {
    await pg.stop();
  }
});
