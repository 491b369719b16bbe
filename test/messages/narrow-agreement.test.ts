// One narrow parser, two compilers: for every operator (and negations), GET /messages (SQL over the stored
// messages) and matches_narrow (the in-memory predicate) select the same messages of a real realm.
import test from 'ava';
import { readFileSync } from 'node:fs';
import { searchVectorSql } from '../../src/narrow/index.js';
import { migrationsDir } from '../../src/paths.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { dm, getMessages, makeCast, makeChannel, post, realmOf, type Cast } from './helpers.js';

let s: TestServer;
let cast: Cast;
let all: number[];
let made: number[];

test.before(async () => {
  s = await startTestServer();
  cast = await makeCast(s, 'agree');
  const { member: viewer, other, admin } = cast;
  const pub = 'agree public';
  const priv = 'agree private';
  await makeChannel(s, pub, [viewer.id, other.id, admin.id]);
  await makeChannel(s, priv, [viewer.id, other.id], { inviteOnly: true });
  await s.client.as(viewer).post('/users/me/alert_words', { form: { alert_words: '["zebra"]' } });
  const ids = [
    await post(s, other, pub, 'Cooking', 'Baking bread at https://example.com/bread'),
    await post(s, other, pub, '✔ solved issue', `thanks @**${viewer.fullName}**`),
    await post(s, admin, pub, 'cooking', 'a "quoted phrase" about soup'),
    await post(s, other, pub, '', 'the empty topic with a zebra'),
    await post(s, other, pub, 'muted talk', 'nobody wants this'),
    await post(s, other, priv, 'secret plans', 'see [plan.pdf](/user_uploads/2/ab/plan.pdf) and [pic.png](/user_uploads/2/cd/pic.png)'),
    await post(s, viewer, priv, 'secret plans', 'hello @**all**'),
    await dm(s, other, [viewer.id], 'a direct bread question'),
    await dm(s, other, [viewer.id, admin.id], 'group chat about soup'),
    await dm(s, viewer, [viewer.id], 'note to self'),
    await dm(s, admin, [viewer.id], 'from the admin'),
  ];
  await s.client.as(viewer).post('/messages/flags', { form: { messages: JSON.stringify([ids[0], ids[7]]), op: 'add', flag: 'starred' } });
  await s.client.as(viewer).post('/messages/flags', { form: { messages: JSON.stringify([ids[2], ids[8]]), op: 'add', flag: 'read' } });
  await s.client.as(other).post(`/messages/${ids[2]}/reactions`, { form: { emoji_name: 'octopus' } });
  const realm = await realmOf(s);
  const pubId = realm.state.channels.channelByName(pub)!.id;
  await s.server.services.db.none(
    `INSERT INTO user_topics (user_id, channel_id, topic, visibility_policy) VALUES ($1, $2, 'muted talk', 1), ($1, $2, 'cooking', 3)`,
    [viewer.id, pubId],
  );
  made = ids;
  const everything = await getMessages(s, viewer, { anchor: 'oldest', num_before: 0, num_after: 1000 });
  all = everything.json.messages.map((m: { id: number }) => m.id);
});
test.after.always(() => s?.close());

function narrows(): unknown[] {
  const { member: viewer, other, admin } = cast;
  const base: unknown[] = [
    [],
    [['channel', 'agree public']],
    [{ operator: 'channel', operand: 'agree private', negated: true }],
    [['channels', 'public']],
    [['topic', 'COOKING']],
    [['channel', 'agree public'], ['topic', '']],
    [{ operator: 'sender', operand: other.id }],
    [['sender', admin.email]],
    [{ operator: 'dm', operand: [other.id] }],
    [['dm', `${other.email},${admin.email}`]],
    [{ operator: 'dm', operand: [viewer.id] }],
    [{ operator: 'dm-including', operand: admin.id }],
    [['group-pm-with', admin.email]],
    [['search', 'bread']],
    [['search', 'cook']],
    [['search', '"quoted phrase"']],
    [['search', 'no-such-word-anywhere']],
    [{ operator: 'id', operand: 0 }],
    [['near', '5']],
    [['in', 'home']],
    [['in', 'all']],
  ];
  for (const what of ['dm', 'starred', 'mentioned', 'unread', 'resolved', 'followed', 'muted', 'alerted']) {
    base.push([['is', what]], [{ operator: 'is', operand: what, negated: true }]);
  }
  for (const what of ['link', 'attachment', 'image', 'reaction']) {
    base.push([['has', what]], [{ operator: 'has', operand: what, negated: true }]);
  }
  base.push([{ operator: 'id', operand: all[3] }], [{ operator: 'id', operand: all[3], negated: true }]);
  base.push([{ operator: 'with', operand: all.at(-2) }]);
  return base;
}

test('GET /messages and matches_narrow agree on every operator and its negation', async (t) => {
  t.true(all.length >= 11);
  for (const narrow of narrows()) {
    const label = JSON.stringify(narrow);
    const sql = await getMessages(s, cast.member, { anchor: 'oldest', num_before: 0, num_after: 1000, narrow: label });
    t.is(sql.status, 200, label + sql.text);
    const viaSql = sql.json.messages.map((m: { id: number }) => m.id).filter((id: number) => all.includes(id));
    const pred = await s.client.as(cast.member).get('/messages/matches_narrow', { query: { msg_ids: JSON.stringify(all), narrow: label } });
    t.is(pred.status, 200, label + pred.text);
    const viaPredicate = Object.keys(pred.json.messages).map(Number).sort((a, b) => a - b);
    t.deepEqual(viaSql, viaPredicate, label);
  }
});

test('the shared narrows select what they mean (the agreement above is not vacuous)', async (t) => {
  const get = async (narrow: unknown) =>
    (await getMessages(s, cast.member, { anchor: 'oldest', num_before: 0, num_after: 1000, narrow: JSON.stringify(narrow) })).json.messages
      .map((m: { id: number }) => m.id)
      .filter((id: number) => made.includes(id));
  const m = made;
  t.deepEqual(await get([['has', 'attachment']]), [m[5]]);
  t.deepEqual(await get([['has', 'image']]), [m[5]]);
  t.deepEqual(await get([['has', 'link']]), [m[0], m[5]]);
  t.deepEqual(await get([['has', 'reaction']]), [m[2]]);
  t.deepEqual(await get([['is', 'muted']]), [m[4]]);
  t.deepEqual(await get([['is', 'followed']]), [m[0], m[2]]);
  t.deepEqual(await get([['is', 'alerted']]), [m[3]]);
  t.deepEqual(await get([['is', 'mentioned']]), [m[1], m[6]]);
  t.deepEqual(await get([['is', 'resolved']]), [m[1]]);
  t.deepEqual(await get([['is', 'starred']]), [m[0], m[7]]);
  t.deepEqual(await get([['search', 'soup']]), [m[2], m[8]]);
  t.deepEqual(await get([{ operator: 'dm-including', operand: cast.admin.id }]), [m[8], m[10]]);
  t.deepEqual(await get([['group-pm-with', cast.admin.email]]), [m[8]]);
  t.deepEqual(await get([{ operator: 'with', operand: m[9] }]), [m[9]]);
});

test('the stored search vector is exactly searchVectorSql(topic, rendered_content)', (t) => {
  const migration = readFileSync(`${migrationsDir}/004_messages.sql`, 'utf8');
  t.true(migration.includes(`GENERATED ALWAYS AS (${searchVectorSql('topic', 'rendered_content')}) STORED`));
});
