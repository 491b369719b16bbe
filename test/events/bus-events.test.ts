// The realm's internal events are plain data: each survives a msgpack round trip (as it will between processes)
// and gives the same wire form afterwards; the kinds that are typed never travel in the untyped wire form.
import test from 'ava';
import type { RealmEvent } from '../../src/bus/events.js';
import { toWire } from '../../src/events/wire.js';
import { pack, unpack } from '../../src/msgpack.js';
import { dm, makeChannel, post, sendOk, uniqueName } from '../messages/helpers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';

let s: TestServer;
test.before(async () => {
  s = await startTestServer();
});
test.after.always(async () => s?.close());

/** Wire types every event of which is published as a typed internal event. */
const TYPED_WIRE_TYPES = ['message', 'delete_message', 'update_message', 'user_topic', 'scheduled_messages', 'reminders', 'typing', 'typing_edit_message', 'reaction', 'update_message_flags', 'presence', 'user_status', 'default_streams', 'user_settings', 'drafts', 'saved_snippets', 'navigation_view', 'stream', 'subscription', 'realm_user', 'user_group', 'realm', 'realm_emoji', 'realm_linkifiers', 'realm_playgrounds', 'realm_domains', 'realm_bot', 'realm_export', 'realm_export_consent', 'realm_user_settings_defaults', 'custom_profile_fields', 'invites_changed', 'channel_folder', 'alert_words', 'muted_users', 'attachment', 'push_device', 'update_display_settings', 'update_global_notifications'];

test('published events survive a msgpack round trip with the same wire form; typed kinds are never untyped', async (t) => {
  const alice = await addUser(s, { fullName: 'Alice' });
  const bob = await addUser(s, { fullName: 'Bob' });
  const published: RealmEvent[] = [];
  const stop = s.server.services.hub.subscribe((_realm, events) => published.push(...events));
  try {
    const name = uniqueName('bus');
    const channelId = await makeChannel(s, name, [alice.id, bob.id]);
    const ok = async (request: Promise<{ status: number; text: string }>) => {
      const r = await request;
      t.is(r.status, 200, r.text);
    };
    await post(s, alice, name, 'topic', 'hello @**Bob**');
    await dm(s, alice, [bob.id], 'a direct message');
    const id = await sendOk(s, bob, { type: 'stream', to: name, topic: 'topic', content: 'reply' });
    await ok(s.client.as(alice).post(`/messages/${id}/reactions`, { form: { emoji_name: 'smile' } }));
    await ok(s.client.as(bob).patch(`/messages/${id}`, { form: { content: 'edited reply', topic: '' } }));
    await ok(s.client.as(alice).post('/user_topics', { form: { stream_id: String(channelId), topic: 'topic', visibility_policy: '3' } }));
    const gone = await sendOk(s, bob, { type: 'stream', to: name, topic: 'topic', content: 'to delete' });
    await ok(s.client.as(bob).delete(`/messages/${gone}`));
    const group = await s.client.as(alice).post('/user_groups/create', { form: { name: uniqueName('g'), description: 'd', members: JSON.stringify([alice.id]) } });
    t.is(group.status, 200, group.text);
    await ok(s.client.as(alice).patch(`/user_groups/${group.json.group_id}`, { form: { description: 'new' } }));
    await ok(s.client.as(alice).post(`/user_groups/${group.json.group_id}/members`, { form: { add: JSON.stringify([bob.id]) } }));
    await ok(s.client.as(alice).post(`/user_groups/${group.json.group_id}/deactivate`));
    const owner = s.client.as(s.owner);
    await ok(owner.patch('/realm', { form: { message_content_edit_limit_seconds: '3600' } }));
    await ok(owner.patch('/realm', { form: { description: 'the bus' } }));
    await ok(owner.post('/realm/filters', { form: { pattern: `${uniqueName('BUS')}-(?P<id>[0-9]+)`, url_template: 'https://example.test/{id}' } }));
    await ok(owner.post('/realm/playgrounds', { form: { name: uniqueName('pg'), pygments_language: 'Python', url_template: 'https://play.example.test/?code={code}' } }));
    const slug = uniqueName('bus').toLowerCase().replace(/[^a-z0-9]/g, '');
    const domain = `${slug}.example.com`;
    await ok(owner.post('/realm/domains', { form: { domain, allow_subdomains: 'false' } }));
    await ok(owner.delete(`/realm/domains/${domain}`));
    await ok(owner.post('/bots', { form: { full_name: 'Bus Bot', short_name: `${slug}-bot` } }));
    await ok(owner.patch('/realm/user_settings_defaults', { form: { enter_sends: 'true' } }));
    await ok(s.client.as(alice).patch('/settings', { form: { allow_private_data_export: 'true' } }));
    await ok(s.client.as(alice).post('/users/me/alert_words', { form: { alert_words: JSON.stringify(['bus']) } }));
    await ok(s.client.as(alice).post(`/users/me/muted_users/${bob.id}`));
    await ok(s.client.as(alice).post('/messages/flags', { form: { messages: JSON.stringify([id]), op: 'add', flag: 'starred' } }));
    await ok(s.client.as(alice).post('/typing', { form: { type: 'stream', stream_id: String(channelId), topic: 'topic', op: 'start' } }));
    await ok(s.client.as(alice).post('/typing', { form: { type: 'direct', to: JSON.stringify([bob.id]), op: 'start' } }));
    await ok(s.client.as(alice).post('/users/me/presence', { form: { status: 'active' } }));
    // Away last: it turns presence_enabled off, after which presence is not announced.
    await ok(s.client.as(alice).post('/users/me/status', { form: { status_text: 'busy', away: 'true' } }));
    const at = String(Math.floor(Date.now() / 1000) + 3600);
    const scheduled = await s.client.as(alice).post('/scheduled_messages', { form: { type: 'stream', to: String(channelId), topic: 't', content: 'later', scheduled_delivery_timestamp: at } });
    t.is(scheduled.status, 200, scheduled.text);
    await ok(s.client.as(alice).delete(`/scheduled_messages/${scheduled.json.scheduled_message_id}`));
  } finally {
    stop();
  }
  const kinds = new Set(published.map((re) => re.event.kind));
  for (const k of ['message', 'delete_message', 'update_message', 'user_topic', 'user_group', 'group_members', 'realm', 'realm_linkifiers', 'realm_playgrounds', 'realm_domains', 'realm_bot', 'realm_user_settings_defaults', 'realm_export_consent', 'alert_words', 'muted_users', 'reaction', 'message_flags', 'typing', 'user_status', 'presence', 'scheduled_message', 'user_setting']) t.true(kinds.has(k as never), k);
  for (const re of published) {
    const copy = unpack(pack(re)) as RealmEvent;
    t.deepEqual(copy, re);
    t.is(JSON.stringify(toWire(copy.event)), JSON.stringify(toWire(re.event)));
    const wireLegacy = (r: RealmEvent) => JSON.stringify(Object.values(r.legacy ?? {}).map((list) => list.map(toWire)));
    t.is(wireLegacy(copy), wireLegacy(re));
    if (re.event.kind === undefined) t.false(TYPED_WIRE_TYPES.includes(re.event.type), `untyped ${re.event.type}`);
  }
});
