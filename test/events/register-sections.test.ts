// POST /register produces every section the reference documents: each field the reference's register response
// describes as "Present if `X` is present in `fetch_event_types`" is there when X is asked for (and the whole answer
// passes the reference schema: test/helpers/openapi.ts checks every success answer). Also the version fields under
// both names, the setting that turns the `zulip_*` aliases off, and the legacy sections real clients read.
import test from 'ava';
import { referenceDocument } from '../helpers/openapi.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';

let s: TestServer;

test.before(async () => {
  s = await startTestServer();
});
test.after.always(async () => s?.close());

/** Fields documented as present only in some realms. */
const CONDITIONAL = new Set(['demo_organization_scheduled_deletion_date']);

/** The register fields the reference documents, by the `fetch_event_types` name that brings them. */
function documentedSections(): Map<string, string[]> {
  const doc = referenceDocument();
  const sections = new Map<string, string[]>();
  if (!doc) return sections;
  const schema = doc.components.schemas.register_queue_200_response.allOf[1];
  for (const [field, raw] of Object.entries<any>(schema.properties)) {
    let prop = raw;
    if (prop.$ref) prop = doc.components.schemas[prop.$ref.split('/').pop()];
    const m = /Present if `([a-z_]+)` is present/.exec(prop.description ?? '');
    if (m) sections.set(m[1]!, [...(sections.get(m[1]!) ?? []), field]);
  }
  return sections;
}

test('every documented section is produced when asked for', async (t) => {
  const sections = documentedSections();
  if (sections.size === 0) return t.pass('the reference document is not here');
  t.true(sections.size > 30);
  const missing: string[] = [];
  for (const [type, fields] of sections) {
    const r = await s.client.as(s.owner).post('/register', { form: { fetch_event_types: JSON.stringify([type]), event_types: '[]' } });
    t.is(r.status, 200, type);
    for (const f of fields) if (!CONDITIONAL.has(f) && !(f in r.json)) missing.push(`${type}: ${f}`);
  }
  t.deepEqual(missing, []);
});

test('unknown fetch_event_types are ignored', async (t) => {
  const r = await s.client.as(s.owner).post('/register', { form: { fetch_event_types: '["no_such_type", "alert_words"]' } });
  t.is(r.status, 200);
  t.deepEqual(r.json.alert_words, []);
});

test('version fields under both names, by default', async (t) => {
  const settings = (await s.client.get('/server_settings')).json;
  const reg = (await s.client.as(s.owner).post('/register', { form: { fetch_event_types: '[]' } })).json;
  for (const body of [settings, reg]) {
    t.is(body.zulip_feature_level, body.service_feature_level);
    t.is(body.zulip_version, body.service_version);
    t.is(body.zulip_merge_base, body.service_merge_base);
    t.is(body.zulip_feature_level, 419);
    // Clients read a major and minor version from the leading numbers (e.g. 11.0-palaver-0.1.0).
    t.regex(body.zulip_version, /^(\d+)\.(\d+)-palaver-\d+\.\d+\.\d+/);
  }
});

test('ZULIP_COMPAT_FIELDS=0 leaves only the service_* names', async (t) => {
  const off = await startTestServer({ env: { ZULIP_COMPAT_FIELDS: '0' } });
  try {
    const settings = (await off.client.get('/server_settings')).json;
    const reg = (await off.client.as(off.owner).post('/register', { form: { fetch_event_types: '[]' } })).json;
    for (const body of [settings, reg]) {
      t.is(body.service_feature_level, 419);
      t.false('zulip_feature_level' in body);
      t.false('zulip_version' in body);
      t.false('zulip_merge_base' in body);
    }
  } finally {
    await off.close();
  }
});

test('muted_topics: legacy [channel name, topic, timestamp] triples of muted topics', async (t) => {
  const u = await addUser(s);
  const api = s.client.as(u);
  t.is((await api.post('/users/me/subscriptions', { form: { subscriptions: '[{"name":"muting"}]' } })).status, 200);
  const id = (await api.get('/get_stream_id', { query: { stream: 'muting' } })).json.stream_id;
  const set = (topic: string, policy: number) =>
    api.post('/user_topics', { form: { stream_id: String(id), topic, visibility_policy: String(policy) } });
  t.is((await set('quiet', 1)).status, 200);
  t.is((await set('loud', 3)).status, 200);
  const r = await api.post('/register', { form: { fetch_event_types: '["muted_topics"]' } });
  t.is(r.json.muted_topics.length, 1);
  const [name, topic, ts] = r.json.muted_topics[0];
  t.is(name, 'muting');
  t.is(topic, 'quiet');
  t.true(Number.isInteger(ts) && ts > 1_600_000_000);
});

test('the current user: avatar_url is a URL even with client_gravatar; GET /users/me', async (t) => {
  const u = await addUser(s);
  const api = s.client.as(u);
  const reg = await api.post('/register', { form: { fetch_event_types: '["realm_user"]', client_gravatar: 'true' } });
  t.regex(reg.json.avatar_url, /^https?:\/\//);
  t.regex(reg.json.avatar_url_medium, /^https?:\/\//);
  const before = (await api.get('/users/me')).json;
  t.false('bot_type' in before);
  t.is(before.max_message_id, -1);
  const sent = await api.post('/messages', { form: { type: 'direct', to: JSON.stringify([u.id]), content: 'hello me' } });
  t.is(sent.status, 200);
  const after = (await api.get('/users/me')).json;
  t.is(after.max_message_id, sent.json.id);
});

test('realm_bots lists the bots the user may administer; embedded and webhook bot lists are empty', async (t) => {
  const bot = await addUser(s, { isBot: true, fullName: 'Helper bot' });
  const r = await s.client.as(s.owner).post('/register', {
    form: { fetch_event_types: '["realm_bot", "realm_embedded_bots", "realm_incoming_webhook_bots"]' },
  });
  const ids = r.json.realm_bots.map((b: { user_id: number }) => b.user_id);
  t.true(ids.includes(bot.id));
  t.deepEqual(r.json.realm_embedded_bots, []);
  t.deepEqual(r.json.realm_incoming_webhook_bots, []);
  const human = await addUser(s);
  const theirs = await s.client.as(human).post('/register', { form: { fetch_event_types: '["realm_bot"]' } });
  t.deepEqual(theirs.json.realm_bots, []);
});

test('server_emoji_data_url serves {code_to_names} of the emoji this server accepts', async (t) => {
  const r = await s.client.as(s.owner).post('/register', { form: { fetch_event_types: '["realm"]' } });
  const url = new URL(r.json.server_emoji_data_url);
  const file = await s.client.get(url.pathname, { root: true });
  t.is(file.status, 200);
  t.true(file.json.code_to_names['1f44d'].includes('+1'));
  t.true(file.json.code_to_names['1f44d'].includes('thumbs_up'));
});

test('BigBlueButton calls: the reference error when none is configured', async (t) => {
  const r = await s.client.as(s.owner).get('/calls/bigbluebutton/create', { query: { meeting_name: 'standup' } });
  t.is(r.status, 400);
  t.deepEqual(r.json, { result: 'error', msg: 'BigBlueButton is not configured.', code: 'BAD_REQUEST' });
});

test('realm_default_external_accounts: the external-account types profile fields may use', async (t) => {
  const r = await s.client.as(s.owner).post('/register', { form: { fetch_event_types: '["realm"]', event_types: '[]' } });
  const accounts = r.json.realm_default_external_accounts;
  t.is(accounts.github.url_pattern, 'https://github.com/%(username)s');
  t.is(accounts.twitter.text, 'Twitter');
});
