// The operator dashboard in a real browser (headless Chromium): it asks for the operator token, shows the actor
// counts the server reports, updates live over its WebSocket when actors appear, change state and end, filters the
// actor table, draws its charts, and refuses a wrong token. A screenshot is saved under test-artifacts/.
import test from 'ava';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { CHROMIUM, haveChromium, launchChromium } from '../helpers/browser.js';
import type { TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';
import { bearer, OPERATOR_TOKEN, startOperatorServer } from './helpers.js';

const browserTest = haveChromium ? test.serial : test.skip;
if (!haveChromium) console.warn(`dashboard: ${CHROMIUM} is missing; the browser tests are skipped`);
const ARTIFACTS = path.resolve('test-artifacts');

let s: TestServer;
let browser: Browser | null = null;
test.before(async () => {
  // The refused-token test makes the server warn; nothing else is expected in its log.
  s = await startOperatorServer({ env: { LOG_LEVEL: 'error' } });
  if (haveChromium) {
    browser = await launchChromium();
  }
});
test.after.always(async () => {
  await browser?.close();
  await s?.close();
});

const dashboardUrl = () => `http://127.0.0.1:${s.port}/operators/dashboard`;

/** Actors by kind as the dashboard shows them. */
function shownKinds(page: Page): Promise<Record<string, number>> {
  return page.$$eval('section.kind', (els) => Object.fromEntries(els.map((e) => [e.getAttribute('data-kind'), Number(e.getAttribute('data-total'))])));
}

async function serverKinds(): Promise<Record<string, number>> {
  return (await s.client.get('/operators/actors/counts', { root: true, headers: bearer() })).json.kinds;
}

function kindTotal(page: Page, kind: string, n: number): Promise<unknown> {
  return page.waitForFunction(
    ([k, want]) => document.querySelector(`section.kind[data-kind="${k}"]`)?.getAttribute('data-total') === String(want),
    [kind, n] as const,
  );
}

browserTest('shows the right counts, updates live as actors come, change state and go, and filters the table', async (t) => {
  const page = await browser!.newPage({ viewport: { width: 1400, height: 1000 } });
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => m.type() === 'error' && !m.text().startsWith('Failed to load resource') && problems.push(m.text()));
  page.on('response', (r) => r.status() >= 400 && !r.url().endsWith('/favicon.ico') && problems.push(`${r.status()} ${r.url()}`));
  try {
    const res = await page.goto(`${dashboardUrl()}#token=${OPERATOR_TOKEN}`);
    t.is(res?.status(), 200);
    await page.waitForSelector('#status.live');
    t.false(page.url().includes(OPERATOR_TOKEN), 'the token leaves the address bar');
    await page.waitForSelector('section.kind[data-kind="root"]');
    // The dashboard's counts are the server's (nothing changes meanwhile).
    t.deepEqual(await shownKinds(page), await serverKinds());
    t.is(await page.textContent('section.kind[data-kind="root"] li[data-state="running"] .count'), '1');
    const queues0 = (await serverKinds()).eventQueue ?? 0;

    // Two clients register: two queues appear.
    const alice = await addUser(s, { fullName: 'Alice Dash' });
    const bob = await addUser(s, { fullName: 'Bob Dash' });
    const qa = (await s.client.as(alice).post('/register')).json;
    const qb = (await s.client.as(bob).post('/register')).json;
    await kindTotal(page, 'eventQueue', queues0 + 2);
    t.deepEqual(await shownKinds(page), await serverKinds());

    // Search the table for one queue; its row follows the queue into `polling` when its client polls.
    await page.fill('#f-q', qa.queue_id);
    await page.waitForFunction((id) => {
      const rows = [...document.querySelectorAll('#actor-rows tr')];
      return rows.length === 1 && rows[0]!.getAttribute('data-id') === `queue:${id}`;
    }, qa.queue_id);
    t.is(await page.textContent('#matched'), '1 matched');
    const poll = s.client.as(alice).get('/events', { query: { queue_id: qa.queue_id, last_event_id: String(qa.last_event_id) } });
    await page.waitForSelector(`#actor-rows tr[data-id="queue:${qa.queue_id}"][data-state="polling"]`);
    await page.waitForSelector('section.kind[data-kind="eventQueue"] li[data-state="polling"][data-count="1"]');
    t.regex((await page.textContent(`#actor-rows tr[data-id="queue:${qa.queue_id}"]`)) ?? '', /waiting → polling \(POLL\)/);

    // A message answers the poll; the queue goes back to waiting.
    await s.client.as(bob).post('/messages', { form: { type: 'direct', to: `[${alice.id}]`, content: 'hello dashboard' } });
    t.is((await poll).status, 200);
    await page.waitForSelector(`#actor-rows tr[data-id="queue:${qa.queue_id}"][data-state="waiting"]`);

    // Filter by kind: only realm actors.
    await page.fill('#f-q', '');
    await page.selectOption('#f-kind', 'realm');
    await page.waitForFunction(() => {
      const rows = [...document.querySelectorAll('#actor-rows tr')];
      return rows.length > 0 && rows.every((r) => r.getAttribute('data-kind') === 'realm');
    });
    await page.selectOption('#f-kind', '');

    // A queue deleted by its client disappears from the counts.
    await s.client.as(bob).delete('/events', { form: { queue_id: qb.queue_id } });
    await kindTotal(page, 'eventQueue', queues0 + 1);
    t.deepEqual(await shownKinds(page), await serverKinds());

    // The charts saw the traffic.
    await page.waitForFunction(() => document.querySelectorAll('#chart-requests polyline').length === 2);
    t.regex((await page.textContent('#chart-requests + .legend')) ?? '', /requests\/s/);

    mkdirSync(ARTIFACTS, { recursive: true });
    const shot = path.join(ARTIFACTS, 'operators-dashboard.png');
    // A screenshot left by an earlier run must not stand in for this one.
    rmSync(shot, { force: true });
    await page.screenshot({ path: shot, fullPage: true });
    const png = readFileSync(shot);
    t.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG file');
    t.true(png.length > 10_000, `${png.length} bytes: a rendered page, not a blank one`);
    t.deepEqual(problems, []);
  } finally {
    await page.close();
  }
});

browserTest('asks for the token, and refuses a wrong one', async (t) => {
  const page = await browser!.newPage();
  try {
    await page.goto(dashboardUrl());
    await page.waitForSelector('#login:not([hidden])');
    t.true(await page.isHidden('#main'));
    await page.fill('#token', 'not-the-operator-token');
    await page.click('#connect');
    await page.waitForFunction(() => document.querySelector('#login-error')?.textContent === 'The operator token was refused.');
    t.true(await page.isVisible('#login'));
    t.is(await page.$$eval('section.kind', (els) => els.length), 0, 'nothing shown without the token');
    await page.fill('#token', OPERATOR_TOKEN);
    await page.click('#connect');
    await page.waitForSelector('#status.live');
    await page.waitForSelector('section.kind[data-kind="root"]');
  } finally {
    await page.close();
  }
});

test.serial('the live socket refuses other origins and needs the token as its first message', async (t) => {
  // Node 20 has no WebSocket client without a flag: a raw upgrade request shows the origin check.
  const net = await import('node:net');
  const answer = await new Promise<string>((resolve, reject) => {
    const sock = net.connect(s.port, '127.0.0.1', () => {
      sock.write(
        'GET /operators/live HTTP/1.1\r\nHost: 127.0.0.1:' + s.port + '\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
          'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nOrigin: http://evil.example\r\n\r\n',
      );
    });
    let text = '';
    sock.on('data', (c) => {
      text += c;
      if (text.includes('\r\n\r\n')) {
        sock.destroy();
        resolve(text);
      }
    });
    sock.on('error', reject);
  });
  t.regex(answer, /^HTTP\/1\.1 403/);
});
