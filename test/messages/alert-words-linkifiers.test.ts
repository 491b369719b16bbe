// Alert words and linkifiers over HTTP: the endpoints, their validation and permissions, their events and
// snapshot sections, and their effect on new messages (has_alert_word, links, topic_links).
import test from 'ava';
import { startTestServer, type TestServer } from '../helpers/server.js';
import type { Credentials } from '../helpers/http.js';
import { dm, events, getMessages, makeCast, makeChannel, post, register, uniqueName } from './helpers.js';

let s: TestServer;
test.before(async () => {
  s = await startTestServer();
});
test.after.always(() => s?.close());

const words = (as: Credentials, method: 'get' | 'post' | 'delete', list?: string[]) =>
  s.client.as(as)[method]('/users/me/alert_words', list ? { form: { alert_words: JSON.stringify(list) } } : {});

test('alert words: add (trimmed, case-insensitively unique), list, remove; the alert_words event and snapshot', async (t) => {
  const { member } = await makeCast(s);
  t.deepEqual((await words(member, 'get')).json, { result: 'success', msg: '', alert_words: [] });
  const q = await register(s, member, { event_types: '["alert_words"]' });
  const added = await words(member, 'post', ['Deploy', ' outage ', '']);
  t.deepEqual(added.json, { result: 'success', msg: '', alert_words: ['Deploy', 'outage'] });
  t.deepEqual((await words(member, 'post', ['DEPLOY', 'pager'])).json.alert_words, ['Deploy', 'outage', 'pager']);
  t.deepEqual((await words(member, 'delete', ['deploy'])).json.alert_words, ['outage', 'pager']);
  t.deepEqual((await words(member, 'get')).json.alert_words, ['outage', 'pager']);
  const evs = await events(s, member, q.queue_id);
  t.deepEqual(evs.map((e) => e.alert_words), [['Deploy', 'outage'], ['Deploy', 'outage', 'pager'], ['outage', 'pager']]);
  t.true(evs.every((e) => e.type === 'alert_words'));
  t.deepEqual((await register(s, member, { fetch_event_types: '["alert_words"]' })).alert_words, ['outage', 'pager']);
  const long = await words(member, 'post', ['ok', 'x'.repeat(101)]);
  t.deepEqual(long.json, { result: 'error', msg: 'alert_words[1] is too long (limit: 100 characters)', code: 'BAD_REQUEST' });
  t.is((await s.client.as(member).post('/users/me/alert_words', { form: {} })).json.code, 'REQUEST_VARIABLE_MISSING');
});

test('an alert word in a new message sets has_alert_word for that user only (whole words, any case)', async (t) => {
  const { member, other } = await makeCast(s);
  await words(other, 'post', ['kraken']);
  const hit = await dm(s, member, [other.id], 'Release the KRAKEN!');
  const partial = await dm(s, member, [other.id], 'krakens are plural');
  const theirs = (await getMessages(s, other, { anchor: hit, num_before: 0, num_after: 1 })).json.messages;
  t.deepEqual(theirs.map((m: { flags: string[] }) => m.flags), [['has_alert_word'], []]);
  const mine = (await getMessages(s, member, { anchor: hit, num_before: 0, num_after: 0 })).json.messages[0];
  t.deepEqual(mine.flags, []);
  const alerted = await getMessages(s, other, { anchor: 'newest', num_before: 5, num_after: 0, narrow: '[["is","alerted"]]' });
  t.deepEqual(alerted.json.messages.map((m: { id: number }) => m.id), [hit]);
  t.not(partial, hit);
});

const addLinkifier = (as: Credentials, pattern: string, url_template: string) =>
  s.client.as(as).post('/realm/filters', { form: { pattern, url_template } });

test.serial('linkifiers: administrators only; add, list, render, topic links, change, reorder, delete', async (t) => {
  const { member, admin, other } = await makeCast(s);
  const refused = await addLinkifier(member, '#(?P<id>[0-9]+)', 'https://example.com/issues/{id}');
  t.deepEqual(refused.json, { result: 'error', msg: 'Must be an organization administrator', code: 'UNAUTHORIZED_PRINCIPAL' });
  const modern = await register(s, member, { event_types: '["realm_linkifiers"]', client_capabilities: '{"linkifier_url_template":true}' });
  const legacy = await register(s, member, { event_types: '["realm_linkifiers"]' });

  const r = await addLinkifier(admin, '#(?P<id>[0-9]+)', 'https://example.com/issues/{id}');
  t.is(r.status, 200);
  const id = r.json.id as number;
  t.true(Number.isInteger(id));
  const second = (await addLinkifier(admin, 'PR(?P<num>[0-9]+)', 'https://example.com/pulls/{num}')).json.id as number;
  const list = await s.client.as(member).get('/realm/linkifiers');
  t.deepEqual(list.json.linkifiers, [
    { pattern: '#(?P<id>[0-9]+)', url_template: 'https://example.com/issues/{id}', id },
    { pattern: 'PR(?P<num>[0-9]+)', url_template: 'https://example.com/pulls/{num}', id: second },
  ]);

  const name = uniqueName();
  await makeChannel(s, name, [member.id, other.id]);
  const msg = await post(s, member, name, 'fix for #42 and PR7', 'see #42');
  const m = (await s.client.as(other).get(`/messages/${msg}`)).json.message;
  t.is(m.content, '<p>see <a href="https://example.com/issues/42">#42</a></p>');
  t.deepEqual(m.topic_links, [
    { text: '#42', url: 'https://example.com/issues/42' },
    { text: 'PR7', url: 'https://example.com/pulls/7' },
  ]);

  t.is((await s.client.as(admin).patch(`/realm/filters/${id}`, { form: { pattern: '#(?P<id>[0-9]+)', url_template: 'https://tracker.example/{id}' } })).status, 200);
  t.is((await s.client.as(admin).patch('/realm/linkifiers', { form: { ordered_linkifier_ids: JSON.stringify([second, id]) } })).status, 200);
  t.deepEqual((await s.client.as(member).get('/realm/linkifiers')).json.linkifiers.map((l: { id: number }) => l.id), [second, id]);
  const badOrder = await s.client.as(admin).patch('/realm/linkifiers', { form: { ordered_linkifier_ids: JSON.stringify([id]) } });
  t.is(badOrder.json.msg, 'The ordered list must enumerate all existing linkifiers exactly once');
  const dupOrder = await s.client.as(admin).patch('/realm/linkifiers', { form: { ordered_linkifier_ids: JSON.stringify([id, id]) } });
  t.is(dupOrder.json.msg, 'The ordered list must not contain duplicated linkifiers');

  t.is((await s.client.as(admin).delete(`/realm/filters/${second}`)).status, 200);
  t.deepEqual((await s.client.as(admin).delete(`/realm/filters/${second}`)).json, { result: 'error', msg: 'Linkifier not found.', code: 'BAD_REQUEST' });
  t.is((await s.client.as(admin).patch('/realm/filters/999999', { form: { pattern: 'x(?P<a>y)', url_template: 'https://x/{a}' } })).json.msg, 'Linkifier not found.');
  t.is((await s.client.as(admin).delete(`/realm/filters/${id}`)).status, 200);

  const modernEvents = await events(s, member, modern.queue_id);
  t.is(modernEvents.length, 6);
  t.deepEqual(modernEvents.at(-1), { type: 'realm_linkifiers', realm_linkifiers: [], id: 5 });
  t.deepEqual(modernEvents[0].realm_linkifiers, [{ pattern: '#(?P<id>[0-9]+)', url_template: 'https://example.com/issues/{id}', id }]);
  t.deepEqual(await events(s, member, legacy.queue_id), [], 'no realm_linkifiers events without linkifier_url_template');
});

test.serial('linkifier validation: patterns and URL templates are refused with clear errors; what RE2 cannot express is refused', async (t) => {
  const { admin, member } = await makeCast(s);
  const cases: [string, string, string, string][] = [
    ['[', 'https://x/{a}', 'pattern', 'Bad regular expression: missing ]: ['],
    ['(?<!a)b', 'https://x/', 'pattern', 'Bad regular expression: invalid perl operator: (?<!'],
    ['(a)\\1', 'https://x/', 'pattern', 'Bad regular expression: invalid escape sequence: \\1'],
    ['a*', 'https://x/', 'pattern', 'Pattern must not match an empty string.'],
    ['#(?P<id>[0-9]+)', 'https://x/{nope}', 'url_template', 'Group "nope" in URL template is not present in linkifier pattern.'],
    ['#(?P<id>[0-9]+)', 'javascript:alert({id})', 'url_template', 'URL template must start with http://, https://, mailto: or /.'],
    ['#(?P<id>[0-9]+)', 'https://x/{id', 'url_template', 'Unclosed "{" in URL template.'],
  ];
  for (const [pattern, template, field, msg] of cases) {
    const r = await addLinkifier(admin, pattern, template);
    t.is(r.status, 400, pattern);
    t.deepEqual(r.json, { result: 'error', msg, code: 'BAD_REQUEST', errors: { [field]: [msg] } });
  }
  const ok = await addLinkifier(admin, 'T(?P<n>[0-9]+)', 'https://x/{n}');
  const dup = await addLinkifier(admin, 'T(?P<n>[0-9]+)', 'https://y/{n}');
  t.is(dup.json.msg, 'Linkifier with this Pattern already exists.');
  t.deepEqual((await s.client.as(member).get('/realm/linkifiers')).json.linkifiers.map((l: { id: number }) => l.id), [ok.json.id]);
  const snapshot = await register(s, member, { fetch_event_types: '["realm_linkifiers"]', client_capabilities: '{"linkifier_url_template":true}' });
  t.deepEqual(snapshot.realm_linkifiers, [{ pattern: 'T(?P<n>[0-9]+)', url_template: 'https://x/{n}', id: ok.json.id }]);
  const old = await register(s, member, { fetch_event_types: '["realm_linkifiers"]' });
  t.deepEqual(old.realm_linkifiers, []);
  await s.client.as(admin).delete(`/realm/filters/${ok.json.id}`);
});
