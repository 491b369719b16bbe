// The embedded PostgreSQL dies under the server (its postmaster killed with SIGKILL): requests fail at once with the
// 503 envelope instead of hanging, the server starts the database again by itself, and nothing acknowledged is lost.
import test from 'ava';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Response } from '../helpers/http.js';
import { startTestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';
import { history, until } from './child-server.js';

/** A request not answered after this long counts as hung (the test client's own timeout is 30 s). */
const HUNG_MS = 12_000;

function postmasterPid(dataDir: string): number {
  return Number(readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
}

test('the embedded PostgreSQL killed: 503 envelopes at once, started again by the server, nothing acknowledged lost', async (t) => {
  // Errors while the database is away are expected.
  const s = await startTestServer({ embedded: true, env: { LOG_LEVEL: 'fatal' } });
  try {
    const user = await addUser(s);
    const client = s.client.as(user);
    const send = (content: string) => client.post('/messages', { form: { type: 'direct', to: JSON.stringify([user.id]), content } });
    const before = await send('before the kill');
    t.is(before.status, 200, before.text);

    const killed = postmasterPid(s.dataDir);
    process.kill(killed, 'SIGKILL');
    const during: (Response | 'hung')[] = [];
    for (let i = 0; i < 10; i++) {
      let timer: NodeJS.Timeout | undefined;
      const hung = new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), HUNG_MS)));
      during.push(await Promise.race([send(`during ${i}`), hung]));
      clearTimeout(timer);
    }
    const failed = during.filter((r) => r === 'hung' || r.status !== 200);
    t.log(`${failed.length} of ${during.length} sends right after the kill failed`);
    t.true(failed.length > 0, 'the kill was felt');
    t.deepEqual(
      failed.filter((r) => r === 'hung' || r.status !== 503 || r.json.code !== 'SERVICE_UNAVAILABLE'),
      [],
      'every failure is a 503 SERVICE_UNAVAILABLE envelope, none hung',
    );

    await until(async () => (await send('after the restart')).status === 200, 'the server serves again');
    t.not(postmasterPid(s.dataDir), killed, 'a new postmaster');
    const acked = [before, ...during.filter((r): r is Response => r !== 'hung' && r.status === 200)].map((r) => r.json.id as number);
    const seen = new Set((await history(client, [{ operator: 'dm', operand: [user.id] }])).map((m) => m.id));
    t.deepEqual(acked.filter((id) => !seen.has(id)), [], 'every acknowledged send is in history');
    t.is((await s.client.get('/health/ready', { root: true })).status, 200);
  } finally {
    await s.close();
  }
});
