// Drops one test database, in a process of its own that nobody waits for (database.ts starts it when a test file is
// done with its database): DROP DATABASE makes PostgreSQL take a checkpoint, a second or more on a loaded machine,
// and a test file need not wait for it. Drops that arrive during a checkpoint share the next one.
// Usage: node drop-database.js SERVER_URL NAME
import pgPromise from 'pg-promise';

const [serverUrl, name] = process.argv.slice(2) as [string, string];
const pgp = pgPromise();
const admin = pgp({ connectionString: serverUrl, application_name: `drop ${name}`, max: 1 });
admin.$pool.on('error', () => undefined);
try {
  await admin.none('DROP DATABASE IF EXISTS $1:name WITH (FORCE)', [name]);
} catch {
  // The server is gone (an embedded one stops with its run) or refused: CI drops what is left of `palaver_t_%`.
} finally {
  await admin.$pool.end();
}
