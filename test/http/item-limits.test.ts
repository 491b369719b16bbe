// Items per request where the reference has no limit of its own (REQUEST_LIMITS in src/limits.ts): past the limit the
// request is refused with a 400 envelope before any work is done, and nothing is written.
import test from 'ava';
import { REQUEST_LIMITS } from '../../src/limits.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
test.before(async () => {
  s = await startTestServer();
});
test.after.always(async () => s?.close());

const names = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => ({ name: `${prefix} ${i}` }));

async function refused(t: any, r: Promise<{ status: number; json: any }>, msg: RegExp) {
  const res = await r;
  t.is(res.status, 400);
  t.is(res.json.result, 'error');
  t.regex(res.json.msg, msg);
}

test('one subscribe call names at most 500 channels and creates at most 100', async (t) => {
  const c = s.client.as(s.owner);
  await refused(t, c.post('/users/me/subscriptions', { form: { subscriptions: JSON.stringify(names(REQUEST_LIMITS.subscribeChannels + 1, 'many')) } }), /subscriptions has too many items \(limit: 500\)/);
  await refused(
    t,
    c.post('/users/me/subscriptions', { form: { subscriptions: JSON.stringify(names(REQUEST_LIMITS.createdChannels + 1, 'new')) } }),
    /Too many new channels in one request \(limit: 100\)/,
  );
  const created = await c.get('/streams');
  t.false(created.json.streams.some((ch: { name: string }) => ch.name.startsWith('new ')), 'no channel was created');
  await refused(t, c.delete('/users/me/subscriptions', { form: { subscriptions: JSON.stringify(names(501, 'x').map((x) => x.name)) } }), /too many items/);
  const principals = JSON.stringify(Array.from({ length: REQUEST_LIMITS.principals + 1 }, (_, i) => i + 1));
  await refused(t, c.post('/users/me/subscriptions', { form: { subscriptions: JSON.stringify(names(1, 'p')), principals } }), /principals has too many items/);
  // Within the limits the call works.
  const ok = await c.post('/users/me/subscriptions', { form: { subscriptions: JSON.stringify(names(REQUEST_LIMITS.createdChannels, 'fine')) } });
  t.is(ok.status, 200, ok.text);
});

test('a direct message and a draft go to at most 1000 recipients', async (t) => {
  const c = s.client.as(s.owner);
  const to = JSON.stringify(Array.from({ length: REQUEST_LIMITS.directRecipients + 1 }, (_, i) => i + 1));
  await refused(t, c.post('/messages', { form: { type: 'direct', to, content: 'hi' } }), /Too many recipients in one request \(limit: 1000\)/);
  const draft = { type: 'private', to: JSON.parse(to), topic: '', content: 'x' };
  await refused(t, c.post('/drafts', { form: { drafts: JSON.stringify([draft]) } }), /too many items \(limit: 1000\)/);
  const drafts = Array.from({ length: REQUEST_LIMITS.drafts + 1 }, () => ({ type: '', to: [], topic: '', content: 'x' }));
  await refused(t, c.post('/drafts', { form: { drafts: JSON.stringify(drafts) } }), /drafts has too many items/);
});

test('navigation view fields have lengths', async (t) => {
  const c = s.client.as(s.owner);
  await refused(t, c.post('/navigation_views', { form: { fragment: 'narrow/' + 'a'.repeat(1000), is_pinned: 'true', name: 'long' } }), /fragment is too long/);
  await refused(t, c.post('/navigation_views', { form: { fragment: 'narrow/is/alerted', is_pinned: 'true', name: 'n'.repeat(101) } }), /name is too long/);
  const ok = await c.post('/navigation_views', { form: { fragment: 'narrow/is/alerted', is_pinned: 'true', name: 'n'.repeat(100) } });
  t.is(ok.status, 200, ok.text);
});
