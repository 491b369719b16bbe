// Topic links over HTTP: `#**channel>topic**` gets the reference's `/with/<id>` permalink — the newest message of
// the topic (case-insensitively) that the author can read — and none for an empty topic, a private history the
// author did not receive, or a channel the author cannot see; moves and deletions are followed.
import test from 'ava';
import type { Credentials } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { makeCast, makeChannel, ownerUser, post, subscribe, uniqueName } from './helpers.js';

let s: TestServer;
test.before(async () => {
  s = await startTestServer();
});
test.after.always(() => s?.close());

/** The rendered_content of a message sent by `as`. */
async function rendered(as: Credentials, channel: string, content: string): Promise<string> {
  const id = await post(s, as, channel, 'links', content);
  const r = await s.client.as(as).get(`/messages/${id}`);
  if (r.status !== 200) throw new Error(r.text);
  return r.json.message.content as string; // the rendered_content, as apply_markdown is on
}

/** The hrefs of the topic links in a rendering. */
const topicHrefs = (html: string) => [...html.matchAll(/class="stream-topic" data-stream-id="\d+" href="([^"]*)"/g)].map((m) => m[1]);

const slug = (id: number, name: string) => `/#narrow/channel/${id}-${name.replace(/ /g, '-')}`;

test('a topic link permalinks the topic’s newest message, whatever the case of its name; none for an empty topic', async (t) => {
  const { member, other } = await makeCast(s);
  const name = uniqueName();
  const id = await makeChannel(s, name, [member.id, other.id]);
  await post(s, member, name, 'Plans', 'one');
  await post(s, other, name, 'plans', 'two');
  const newest = await post(s, member, name, 'PLANS', 'three');
  await post(s, member, name, 'elsewhere', 'not this one');
  const html = await rendered(other, name, `#**${name}>plans** and #**${name}>Plans** but #**${name}>nothing here**`);
  t.deepEqual(topicHrefs(html), [
    `${slug(id, name)}/topic/plans/with/${newest}`,
    `${slug(id, name)}/topic/Plans/with/${newest}`,
    `${slug(id, name)}/topic/nothing.20here`,
  ]);
  // The preview endpoint renders as sending would.
  const preview = await s.client.as(other).post('/messages/render', { form: { content: `#**${name}>plans**` } });
  t.deepEqual(topicHrefs(preview.json.rendered), [`${slug(id, name)}/topic/plans/with/${newest}`]);
});

test('a private history: only messages the author received count', async (t) => {
  const { member, other } = await makeCast(s);
  const name = uniqueName('private');
  const id = await makeChannel(s, name, [member.id], { inviteOnly: true, history: false });
  await post(s, member, name, 'secret', 'before you came');
  await subscribe(s, name, [other.id], member);
  const link = `#**${name}>secret**`;
  t.deepEqual(topicHrefs(await rendered(other, name, link)), [`${slug(id, name)}/topic/secret`]);
  const received = await post(s, member, name, 'secret', 'after you came');
  t.deepEqual(topicHrefs(await rendered(other, name, link)), [`${slug(id, name)}/topic/secret/with/${received}`]);
  // A member of the channel from the start sees the same newest message.
  t.deepEqual(topicHrefs(await rendered(member, name, link)), [`${slug(id, name)}/topic/secret/with/${received}`]);
});

test('a channel whose messages the author cannot read: no link at all (even for an administrator who sees its settings)', async (t) => {
  const { member, other, admin } = await makeCast(s);
  const hidden = uniqueName('hidden');
  await makeChannel(s, hidden, [member.id], { inviteOnly: true });
  await post(s, member, hidden, 'plots', 'classified');
  const open = uniqueName();
  await makeChannel(s, open, [other.id, admin.id]);
  for (const author of [other, admin]) {
    const html = await rendered(author, open, `#**${hidden}>plots** #**${hidden}**`);
    t.is(html, `<p>#<strong>${hidden}&gt;plots</strong> #<strong>${hidden}</strong></p>`);
  }
});

test('moves and deletions are followed: the permalink is the topic’s newest message at render time', async (t) => {
  const { member } = await makeCast(s);
  const owner = await ownerUser(s);
  const name = uniqueName();
  const id = await makeChannel(s, name, [member.id, owner.id]);
  const first = await post(s, member, name, 'draft', 'a');
  const second = await post(s, member, name, 'draft', 'b');
  const moved = await s.client.as(owner).patch(`/messages/${first}`, { form: { topic: 'final', propagate_mode: 'change_all' } });
  t.is(moved.status, 200, moved.text);
  t.deepEqual(topicHrefs(await rendered(member, name, `#**${name}>draft** #**${name}>final**`)), [
    `${slug(id, name)}/topic/draft`,
    `${slug(id, name)}/topic/final/with/${second}`,
  ]);
  const deleted = await s.client.as(owner).delete(`/messages/${second}`);
  t.is(deleted.status, 200, deleted.text);
  t.deepEqual(topicHrefs(await rendered(member, name, `#**${name}>final**`)), [`${slug(id, name)}/topic/final/with/${first}`]);
});
