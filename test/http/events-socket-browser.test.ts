// The browser path of event sockets in headless Chromium: a page that holds an API key registers a queue, asks for a
// ticket with an authenticated fetch, and opens the WebSocket with the ticket in the URL (a browser cannot set an
// Authorization header on a WebSocket); it receives a message frame and acknowledges it. Without a ticket the browser's
// socket is refused. The page's code is the README's browser example.
import test from 'ava';
import type { Browser } from 'playwright-core';
import { CHROMIUM, haveChromium, launchChromium } from '../helpers/browser.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';

const browserTest = haveChromium ? test.serial : test.skip;
if (!haveChromium) console.warn(`events-socket-browser: ${CHROMIUM} is missing; the browser tests are skipped`);

let s: TestServer;
let browser: Browser | null = null;
test.before(async () => {
  s = await startTestServer();
  if (haveChromium) {
    browser = await launchChromium();
  }
});
test.after.always(async () => {
  await browser?.close();
  await s?.close();
});

/** Runs in the page: register, ticket, socket; resolves once the socket is open, leaving the frames in window.frames. */
async function openInPage(args: { email: string; apiKey: string; withTicket: boolean }): Promise<{ queueId: string; opened: boolean; closeCode: number | null }> {
  const w = window as unknown as { frames_: unknown[]; socket: WebSocket };
  const auth = { Authorization: 'Basic ' + btoa(`${args.email}:${args.apiKey}`) };
  const form = (o: Record<string, string>) => new URLSearchParams(o);
  // --- the README's browser example ---
  const { queue_id, last_event_id } = await (await fetch('/api/v1/register', { method: 'POST', headers: auth, body: form({ event_types: '["message"]' }) })).json();
  const { ticket } = await (await fetch('/api/v1/events/socket/ticket', { method: 'POST', headers: auth, body: form({ queue_id }) })).json();
  const url = new URL('/api/v1/events/socket', location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.search = new URLSearchParams({ queue_id, last_event_id: String(last_event_id), ...(args.withTicket ? { ticket } : {}) }).toString();
  const socket = new WebSocket(url);
  w.frames_ = [];
  socket.onmessage = (m) => {
    const frame = JSON.parse(m.data);
    if (frame.result !== 'success') return w.frames_.push(frame); // an error frame; the close follows
    w.frames_.push(frame);
    const last = frame.events[frame.events.length - 1];
    socket.send(JSON.stringify({ last_event_id: last.id }));
  };
  // --- end of the example ---
  w.socket = socket;
  return new Promise((resolve) => {
    socket.onopen = () => resolve({ queueId: queue_id, opened: true, closeCode: null });
    socket.onclose = (e) => resolve({ queueId: queue_id, opened: false, closeCode: e.code });
  });
}

browserTest('a browser opens the socket with a ticket, receives a message frame and acknowledges it', async (t) => {
  const alice = await addUser(s);
  const bob = await addUser(s);
  const page = await browser!.newPage();
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(e.message));
  try {
    await page.goto(`http://127.0.0.1:${s.port}/api/v1/server_settings`);
    const opened = await page.evaluate(openInPage, { email: bob.email, apiKey: bob.apiKey, withTicket: true });
    t.true(opened.opened);
    const sent = await s.client.as(alice).post('/messages', { form: { type: 'direct', to: JSON.stringify([bob.id]), content: 'to the browser' } });
    t.is(sent.status, 200);
    await page.waitForFunction(() => (window as unknown as { frames_: unknown[] }).frames_.length > 0);
    const frames = await page.evaluate(() => (window as unknown as { frames_: { queue_id: string; events: { id: number; message: { id: number } }[] }[] }).frames_);
    t.is(frames[0]!.queue_id, opened.queueId);
    t.is(frames[0]!.events[0]!.id, 0);
    t.is(frames[0]!.events[0]!.message.id, sent.json.id);
    // The acknowledgement reached the queue: the event is pruned.
    const queue = s.server.services.queues.get(opened.queueId)!;
    const deadline = Date.now() + 20_000;
    while (queue.firstUnacked !== 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    t.is(queue.firstUnacked, 1);
    t.deepEqual(problems, []);
  } finally {
    await page.close();
    // The page's socket ends on the server a moment after the page closes; the next test counts sockets.
    const closed = Date.now() + 20_000;
    while (s.server.services.sockets.count > 0 && Date.now() < closed) await new Promise((r) => setTimeout(r, 50));
  }
});

browserTest('without a ticket the browser’s socket is refused (it cannot send the API key in a header)', async (t) => {
  const bob = await addUser(s);
  const page = await browser!.newPage();
  try {
    await page.goto(`http://127.0.0.1:${s.port}/api/v1/server_settings`);
    const opened = await page.evaluate(openInPage, { email: bob.email, apiKey: bob.apiKey, withTicket: false });
    t.false(opened.opened);
    t.is(opened.closeCode, 1006, 'the upgrade was answered with an HTTP error (401), which a browser reports as 1006');
    t.is(s.server.services.sockets.count, 0);
  } finally {
    await page.close();
  }
});
