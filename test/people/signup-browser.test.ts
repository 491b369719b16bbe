// The invitation sign-up page in a real browser (headless Chromium): a person opens the link, gives their email
// address, follows the confirmation link mailed to it, picks a name and password, and lands in the realm with the
// invited role, channels and groups; a revoked link shows a clear page.
import test from 'ava';
import type { Browser } from 'playwright-core';
import { CHROMIUM, haveChromium, launchChromium } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { makeChannel } from './channels-fixture.js';

const browserTest = haveChromium ? test.serial : test.skip;
if (!haveChromium) console.warn(`signup-browser: ${CHROMIUM} is missing; the browser tests are skipped`);

let s: TestServer;
let browser: Browser | null = null;
let ownerId: number;
test.before(async () => {
  s = await startTestServer();
  ownerId = (await s.client.as(s.owner).get('/users/me')).json.user_id;
  if (haveChromium) {
    browser = await launchChromium();
  }
});
/** The confirmation link last mailed to `to` (read from the outbox). */
async function mailedLink(to: string): Promise<string> {
  const mail = (await s.server.services.db.outbox.all()).filter((m) => m.to === to).at(-1)!;
  return /http:\/\/\S+\/accounts\/do_confirm\/[a-z0-9]+\//.exec(mail.body)![0];
}

test.after.always(async () => {
  await browser?.close();
  await s.close();
});

browserTest('a person signs up through the invitation link and lands with the invited role, channels and groups', async (t) => {
  const channelId = await makeChannel(s, { ...s.owner, id: ownerId }, 'browser-lobby');
  const group = await s.client.as(s.owner).post('/user_groups/create', { form: { name: 'browser-crew', description: 'Crew', members: '[]' } });
  const created = await s.client.as(s.owner).post('/invites/multiuse', {
    form: { invite_as: '600', stream_ids: JSON.stringify([channelId]), group_ids: JSON.stringify([group.json.group_id]) },
  });
  t.is(created.status, 200, created.text);
  const page = await browser!.newPage();
  try {
    const first = await page.goto(created.json.invite_link);
    t.is(first?.status(), 200);
    t.regex(await page.textContent('h1') ?? '', /^Join /);
    await page.fill('#email', 'browser.person@test.example');
    await Promise.all([page.waitForNavigation(), page.click('#submit')]);
    t.is(await page.textContent('#confirm-sent'), 'Confirm your email address');
    const confirm = await page.goto(await mailedLink('browser.person@test.example'));
    t.is(confirm?.status(), 200);
    t.is(await page.textContent('#email'), 'browser.person@test.example');
    await page.fill('#full_name', 'Browser Person');
    await page.fill('#password', 'browser-pass-123');
    await Promise.all([page.waitForNavigation(), page.click('#submit')]);
    t.is(await page.textContent('#welcome'), 'Welcome to Palaver, Browser Person!');
    t.is(await page.textContent('#role'), 'Guest');
    t.deepEqual(await page.$$eval('#channels li', (els) => els.map((e) => e.textContent)), ['browser-lobby']);
    t.deepEqual(await page.$$eval('#groups li', (els) => els.map((e) => e.textContent)), ['browser-crew']);
  } finally {
    await page.close();
  }
  // The account works: the password logs in, and the API shows the role, channel and group.
  const login = await s.client.post('/fetch_api_key', { form: { username: 'browser.person@test.example', password: 'browser-pass-123' } });
  t.is(login.status, 200, login.text);
  const creds = { email: 'browser.person@test.example', apiKey: login.json.api_key as string };
  const me = await s.client.as(creds).get('/users/me');
  t.is(me.json.role, 600);
  t.is(me.json.full_name, 'Browser Person');
  const members = await s.client.as(s.owner).get(`/user_groups/${group.json.group_id}/members`);
  t.deepEqual(members.json.members, [login.json.user_id]);
  const state = (await s.server.services.realms.forHost(undefined)).state;
  t.true(state.channels.isSubscribed(login.json.user_id, channelId));
});

browserTest('a mistake keeps the form with the error; a revoked link shows a clear page', async (t) => {
  const created = await s.client.as(s.owner).post('/invites/multiuse');
  const page = await browser!.newPage();
  try {
    await page.goto(created.json.invite_link);
    await page.fill('#email', 'owner@test.example');
    await Promise.all([page.waitForNavigation(), page.click('#submit')]);
    t.is(await page.textContent('#form-error'), 'Email is already in use.');
    t.is(await page.inputValue('#email'), 'owner@test.example');
    // A weak password on the confirmed form: the form again, the name kept.
    await page.fill('#email', 'weak.person@test.example');
    await Promise.all([page.waitForNavigation(), page.click('#submit')]);
    await page.goto(await mailedLink('weak.person@test.example'));
    await page.fill('#full_name', 'Copy Cat');
    await page.fill('#password', 'password1');
    await Promise.all([page.waitForNavigation(), page.click('#submit')]);
    t.is(await page.textContent('#form-error'), 'The password is too weak.');
    t.is(await page.inputValue('#full_name'), 'Copy Cat');

    const invites = (await s.client.as(s.owner).get('/invites')).json.invites as { id: number; link_url: string }[];
    const id = invites.find((i) => i.link_url === created.json.invite_link)!.id;
    t.is((await s.client.as(s.owner).delete(`/invites/multiuse/${id}`)).status, 200);
    const res = await page.goto(created.json.invite_link);
    t.is(res?.status(), 410);
    t.is(await page.textContent('#link-error'), 'This invitation link has been revoked.');
    t.is(await page.$('form'), null);
  } finally {
    await page.close();
  }
});
