// Files no message links are removed after the grace period, with their bytes; linked files stay. Uploads and
// removals are announced to the uploader as attachment events.
import test from 'ava';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';
import { download, insertMessage, upload } from './helpers.js';

let s: TestServer;
test.before(async () => {
  s = await startTestServer();
});
test.after.always(async () => s?.close());

const DAY = 24 * 3600 * 1000;
const stored = (url: string) => path.join(s.dataDir, 'uploads', 'files', ...decodeURIComponent(url.slice('/user_uploads/'.length)).split('/'));

test('unclaimed files go after the grace period; linked ones stay; the uploader hears of both', async (t) => {
  const alice = await addUser(s);
  const bob = await addUser(s);
  const queue = (await s.client.as(alice).post('/register', { form: { event_types: JSON.stringify(['attachment']) } })).json;
  const orphan = await upload(s, alice, 'orphan.txt', 'nobody links me');
  const kept = await upload(s, alice, 'kept.txt', 'linked');
  await insertMessage(s, { senderId: alice.id, content: `[kept](${kept.url})`, recipients: [bob.id] });

  t.is(await s.server.services.files.sweep(Date.now()), 0, 'nothing is removed within the grace period');
  t.is(await s.server.services.files.sweep(Date.now() + 22 * DAY), 1);
  t.is((await download(s, orphan.url, alice)).status, 404);
  t.false(existsSync(stored(orphan.url)));
  t.is((await download(s, kept.url, bob)).status, 200);
  t.true(existsSync(stored(kept.url)));
  const names = (await s.client.as(alice).get('/attachments')).json.attachments.map((a: { name: string }) => a.name);
  t.deepEqual(names, ['kept.txt']);

  const polled = await s.client.as(alice).get('/events', { query: { queue_id: queue.queue_id, last_event_id: '-1', dont_block: 'true' } });
  const events = polled.json.events.filter((e: { type: string }) => e.type === 'attachment');
  t.deepEqual(events.map((e: { op: string }) => e.op), ['add', 'add', 'remove']);
  t.like(events[0], { attachment: { name: 'orphan.txt', size: 15, messages: [] } });
  t.is(events[2].attachment.id, events[0].attachment.id);
  t.is(events[2].upload_space_used, 6);
});
