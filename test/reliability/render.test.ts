// Worst-case renders cannot stall the server: Markdown renders on worker threads, so other requests are answered
// while heavy renders run; a render past its time limit is abandoned with Zulip's error; render input is bounded
// like a message; a user's sends keep their order although their renders take different times.
import test from 'ava';
import net from 'node:net';
import { basicAuth, type Credentials } from '../helpers/http.js';
import { addUsers, history, login, openSite, type ChildServer, type Site, type SiteUser } from './child-server.js';

let site: Site;
let server: ChildServer;
let owner: Credentials;
let users: SiteUser[];

// The issue's linkifier: exponential on a backtracking engine (84 s for 800 letters), linear on RE2.
const ISSUE_PATTERN = '(?P<id>\\w{1,1000}\\w{1,1000}\\w{1,1000})!';
const LETTERS = 'a'.repeat(9_999);
/** Within the message limit, as much work per character as the syntax allows: emphasis, mentions and emoji. */
const WORST = '**a @**someone** :smile: '.repeat(500).slice(0, 10_000);

test.before(async () => {
  site = await openSite();
  server = await site.start();
  owner = await login(server.client);
  users = await addUsers(site, server, 3);
});
test.after.always(async () => {
  await server?.kill('SIGKILL');
  await site?.close();
});

/** What the server answers to a request head (and the start of its body) written on a raw socket. */
function rawHead(text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port: server.port }, () => socket.write(text));
    let answer = '';
    socket.on('data', (d) => {
      answer += d.toString();
      if (answer.includes('}')) socket.destroy();
    });
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

test.serial('the issue’s linkifier is accepted on RE2 and renders its letters without stalling', async (t) => {
  const add = await server.client.as(owner).post('/realm/filters', { form: { pattern: ISSUE_PATTERN, url_template: 'https://x.example/{id}' } });
  t.is(add.status, 200, add.text);
  const r = await server.client.as(users[0]!).post('/messages/render', { form: { content: 'abc!' } });
  t.regex(r.json.rendered, /^<p><a href="https:\/\/x\.example\/abc"[^>]*>abc!<\/a><\/p>$/);
  const long = await server.client.as(users[0]!).post('/messages/render', { form: { content: LETTERS } });
  t.is(long.status, 200);
  t.is(long.json.rendered, `<p>${LETTERS}</p>`);
});

test.serial('unrelated requests are answered while worst-case renders run', async (t) => {
  let heavyDone = false;
  const heavy = Array.from({ length: 200 }, (_, i) =>
    server.client.as(users[i % 2]!).post('/messages/render', { form: { content: i % 3 === 0 ? LETTERS : WORST } }),
  );
  const all = Promise.all(heavy).then((rs) => {
    heavyDone = true;
    return rs;
  });
  // Once the server is answering the heavy requests, it is amid them: ask it for something else.
  await Promise.race(heavy);
  const live = await server.client.get('/health/live', { root: true });
  const liveBeforeHeavy = !heavyDone;
  const me = await server.client.as(users[2]!).get('/users/me');
  const meBeforeHeavy = !heavyDone;
  const results = await all;
  t.is(live.status, 200);
  t.true(liveBeforeHeavy, '/health/live answered before the heavy renders completed');
  t.is(me.status, 200);
  t.true(meBeforeHeavy, 'another user’s GET answered before the heavy renders completed');
  for (const r of results) t.is(r.status, 200, r.text);
});

test.serial('render content is bounded like a message, however large the body', async (t) => {
  const c = server.client.as(users[0]!);
  const tooLong = { result: 'error', msg: 'content is too long (limit: 10000 characters)', code: 'BAD_REQUEST' };
  t.deepEqual((await c.post('/messages/render', { form: { content: 'x'.repeat(10_001) } })).json, tooLong);
  // The issue's 8 MB of `**a`: refused unread (no valid render body comes near it), before any parsing or rendering.
  const head = await rawHead(`POST /api/v1/messages/render HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${basicAuth(users[0]!.email, users[0]!.apiKey)}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${8 * 2 ** 20}\r\n\r\ncontent=**a`);
  t.regex(head, /^HTTP\/1\.1 413 /);
  t.regex(head, /"code":"REQUEST_TOO_LARGE"/);
  // The longest valid content, every character as four percent-encoded UTF-8 bytes, is within the body limit.
  const longest = await c.post('/messages/render', { form: { content: '😀'.repeat(10_000) } });
  t.is(longest.status, 200, longest.text);
});

test.serial('a user’s sends keep their order although the first renders far longer', async (t) => {
  const c = server.client.as(users[0]!);
  const to = JSON.stringify([users[1]!.id]);
  const sends = [WORST, 'light one', 'light two'].map((content) => c.post('/messages', { form: { type: 'direct', to, content } }));
  const ids = (await Promise.all(sends)).map((r) => r.json.id as number);
  t.true(ids[0]! < ids[1]! && ids[1]! < ids[2]!, `ids in the order sent: ${ids.join(', ')}`);
});

test.serial('a render past its time limit is abandoned with "Unable to render message"; nothing is stored', async (t) => {
  await server.kill('SIGTERM');
  // A 1 ms budget: no worst-case message renders within it.
  server = await site.start({ RENDER_TIME_LIMIT_MS: '1' });
  const c = server.client.as(users[0]!);
  const unable = { result: 'error', msg: 'Unable to render message', code: 'BAD_REQUEST' };
  const render = await c.post('/messages/render', { form: { content: WORST } });
  t.is(render.status, 400);
  t.deepEqual(render.json, unable);
  const to = JSON.stringify([users[2]!.id]);
  const send = await c.post('/messages', { form: { type: 'direct', to, content: WORST } });
  t.is(send.status, 400);
  t.deepEqual(send.json, unable);
  const dm = await history(server.client.as(users[2]!), [{ operator: 'dm', operand: [users[0]!.id] }]);
  t.false(dm.some((m) => m.content === WORST.trimEnd()), 'the refused message was not stored');
  t.is((await server.client.get('/health/live', { root: true })).status, 200);
});
