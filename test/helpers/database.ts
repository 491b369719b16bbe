// A throwaway database per test file: a fresh database on DATABASE_URL's server, or, with no DATABASE_URL, on an
// embedded PostgreSQL started for this test file (this process) on first use and stopped when the process is done.
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import type net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createScratchDatabase, type ScratchDatabase } from '../../bench/lib/database.js';
import { embeddedInUse, startEmbedded, type EmbeddedDatabase } from '../../src/persistence/embedded.js';

export type TestDatabase = ScratchDatabase;

const PREFIX = 'palaver-testdb-';
let embedded: Promise<EmbeddedDatabase> | null = null;

/** The URL of the server the test databases are made on. */
async function serverUrl(): Promise<string> {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  embedded ??= startTestServer();
  const { host, port, user, database } = (await embedded).connection;
  return `postgres://${user}@${encodeURIComponent(host)}:${port}/${database}`;
}

async function startTestServer(): Promise<EmbeddedDatabase> {
  removeAbandoned();
  const dir = mkdtempSync(path.join(tmpdir(), PREFIX));
  const server = await startEmbedded(dir, { unref: true });
  // After the file's own after.always hooks, which still use it; a process that is killed instead leaves its
  // postgres to stop by itself (setpriv --pdeathsig) and its directory to removeAbandoned.
  process.once('beforeExit', () => void server.stop().finally(() => rmSync(dir, { recursive: true, force: true })));
  return server;
}

/** Directories of test servers whose processes died an hour ago or more. */
function removeAbandoned(): void {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(PREFIX)) continue;
    const dir = path.join(tmpdir(), name);
    try {
      if (!embeddedInUse(dir) && Date.now() - statSync(dir).mtimeMs > 3600_000) rmSync(dir, { recursive: true, force: true });
    } catch {
      // Another account's, or already gone.
    }
  }
}

export async function createTestDatabase(): Promise<TestDatabase> {
  return createScratchDatabase(await serverUrl(), 'palaver_t');
}

/** Where a PostgreSQL URL's server listens: a unix socket (the host is a directory) or TCP. */
export function socketOf(url: string): net.NetConnectOpts {
  const u = new URL(url);
  const host = decodeURIComponent(u.hostname);
  const port = Number(u.port || 5432);
  return host.startsWith('/') ? { path: path.join(host, `.s.PGSQL.${port}`) } : { host, port };
}
