// Durability under crashes: the server process is killed with SIGKILL in the middle of a send load, of the delivery of
// due scheduled messages, and of a topic deletion; started again on the same database, it has every acknowledged write
// exactly once and nothing half-done that breaks history. The send load runs both on a database of its own (the test
// database server) and on the server's embedded PostgreSQL, the default, killed along with the server it belongs to.
import test, { type ExecutionContext } from 'ava';
import { Client, type Credentials } from '../helpers/http.js';
import { addUsers, history, login, makeChannel, openSite, until, type ChildServer, type Site } from './child-server.js';

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

test.serial('the same with the embedded PostgreSQL (the default, no DATABASE_URL)', async (t) => {
  const site = await openSite({ embedded: true });
  try {
    await sendLoadKilled(t, site);
  } finally {
    await site.close();
  }
});

/** Polls a count from the database until `ready(n)`, then kills the server: the kill lands while the work runs. */
async function killWhen(site: Site, server: ChildServer, sql: string, params: unknown[], ready: (n: number) => boolean): Promise<number> {
  const { db, close } = await site.connect();
  let n = -1;
  try {
    await until(async () => ready((n = (await db.one(sql, params)).n)), 'the work under way', 120_000, 2);
    await server.kill('SIGKILL');
  } finally {
    await close().catch(() => undefined);
  }
  return n;
}

async function count(site: Site, sql: string, params: unknown[]): Promise<number> {
  const { db, close } = await site.connect();
  try {
    return (await db.one(sql, params)).n;
  } finally {
    await close();
  }
}

test.serial('SIGKILL while due scheduled messages are being delivered: after the restart each is delivered exactly once', async (t) => {
  const site = await openSite();
  let server: ChildServer | null = null;
  try {
    server = await site.start();
    const owner = await login(server.client);
    const [sender, reader] = await addUsers(site, server, 2);
    const channelId = await makeChannel(server, owner, 'scheduled crash', [sender!.id, reader!.id]);
    const total = 300;
    // Scheduled an hour ahead, so each is accepted as in the future however long scheduling takes (each message is
    // rendered before it is stored)…
    const at = Math.floor(Date.now() / 1000) + 3600;
    const contents: string[] = [];
    const s = server.client.as(sender!);
    await Promise.all(
      Array.from({ length: 4 }, async (_, lane) => {
        for (let i = lane; i < total; i += 4) {
          const content = `scheduled #${i}`;
          const form: Record<string, string> =
            i % 3 === 0
              ? { type: 'direct', to: JSON.stringify([reader!.id]), content, scheduled_delivery_timestamp: String(at) }
              : { type: 'stream', to: String(channelId), topic: 'later', content, scheduled_delivery_timestamp: String(at) };
          const r = await s.post('/scheduled_messages', { form });
          if (r.status !== 200) throw new Error(`scheduling failed: ${r.text}`);
          contents.push(content);
        }
      }),
    );
    const COUNT = 'SELECT count(*)::int AS n FROM scheduled_messages WHERE delivered AND sender_id = $1';
    // …then, the server stopped, all made due at once (as after downtime): started again, it delivers the 300 together.
    await server.kill('SIGTERM');
    const direct = await site.connect();
    try {
      const moved = await direct.db.result('UPDATE scheduled_messages SET scheduled_at = $2 WHERE sender_id = $1 AND NOT delivered', [
        sender!.id,
        Math.floor(Date.now() / 1000) - 1,
      ]);
      t.is(moved.rowCount, total, 'none delivered before its time');
    } finally {
      await direct.close();
    }
    server = await site.start();
    const atKill = await killWhen(site, server, COUNT, [sender!.id], (n) => n > 0);
    t.log(`${atKill} of ${total} delivered when the server was killed`);
    t.true(atKill < total, 'the kill interrupted the deliveries');

    server = await site.start();
    await until(async () => (await count(site, COUNT, [sender!.id])) === total, 'every message delivered after the restart');
    const failed = await count(site, 'SELECT count(*)::int AS n FROM scheduled_messages WHERE failed', []);
    t.is(failed, 0);
    const r = server.client.as(reader!);
    const seen = [
      ...(await history(r, [{ operator: 'channel', operand: channelId }])),
      ...(await history(r, [{ operator: 'dm', operand: [sender!.id] }])),
    ].filter((m) => m.content.startsWith('scheduled #'));
    const times = new Map<string, number>();
    for (const m of seen) times.set(m.content, (times.get(m.content) ?? 0) + 1);
    t.deepEqual([...times].filter(([, n]) => n !== 1), [], 'none delivered twice');
    t.deepEqual(contents.filter((c) => !times.has(c)), [], 'none lost');
    // The marker names the message that was sent for it.
    const { db, close } = await site.connect();
    try {
      const rows = await db.any('SELECT delivered_message_id AS id FROM scheduled_messages WHERE sender_id = $1', [sender!.id]);
      t.deepEqual(rows.map((x) => Number(x.id)).sort((a, b) => a - b), seen.map((m) => m.id).sort((a, b) => a - b));
    } finally {
      await close();
    }
    t.deepEqual((await server.client.as(sender!).get('/scheduled_messages')).json.scheduled_messages, [], 'nothing left scheduled');
  } finally {
    await server?.kill('SIGTERM');
    await site.close();
  }
});

test.serial('SIGKILL in the middle of a topic deletion: history stays whole, and deleting again completes it', async (t) => {
  const site = await openSite({ env: { TOPIC_DELETION_BATCH_SIZE: '10' } });
  let server: ChildServer | null = null;
  try {
    server = await site.start();
    const owner = await login(server.client);
    const [member] = await addUsers(site, server, 1);
    const channelId = await makeChannel(server, owner, 'deletion crash', [member!.id]);
    const total = 600;
    const o = server.client.as(owner);
    await Promise.all(
      Array.from({ length: 4 }, async (_, lane) => {
        for (let i = lane; i < total; i += 4) {
          const r = await o.post('/messages', { form: { type: 'stream', to: String(channelId), topic: 'big', content: `big #${i}` } });
          if (r.status !== 200) throw new Error(`send failed: ${r.text}`);
        }
      }),
    );
    await o.post('/messages', { form: { type: 'stream', to: String(channelId), topic: 'other', content: 'stays' } });
    const deletion = o.post(`/streams/${channelId}/delete_topic`, { form: { topic_name: 'big' } }).catch(() => null);
    const COUNT = "SELECT count(*)::int AS n FROM messages WHERE stream_id = $1 AND topic = 'big'";
    const atKill = await killWhen(site, server, COUNT, [channelId], (n) => n < total);
    t.is(await deletion, null, 'the deletion was cut off');
    t.log(`${total - atKill} of ${total} deleted when the server was killed`);

    server = await site.start();
    const m = server.client.as(member!);
    const left = await history(m, [{ operator: 'channel', operand: channelId }, { operator: 'topic', operand: 'big' }]);
    const remaining = await count(site, COUNT, [channelId]);
    t.true(remaining > 0 && remaining < total, 'half deleted');
    t.is(left.length, remaining, 'history shows exactly the messages still stored');
    // Newest first: what is left is the oldest part of the topic, each message readable.
    for (const msg of [left[0]!, left.at(-1)!]) t.is((await m.get(`/messages/${msg.id}`)).status, 200);
    const topics = (await m.get(`/users/me/${channelId}/topics`)).json.topics.map((x: { name: string }) => x.name);
    t.true(topics.includes('big'), 'the topic is still listed while it has messages');

    const again = await server.client.as(owner).post(`/streams/${channelId}/delete_topic`, { form: { topic_name: 'big' } });
    t.is(again.status, 200, again.text);
    t.true(again.json.complete);
    t.deepEqual(await history(m, [{ operator: 'channel', operand: channelId }, { operator: 'topic', operand: 'big' }]), []);
    t.is((await m.get(`/messages/${left[0]!.id}`)).json.code, 'BAD_REQUEST');
    const after = (await m.get(`/users/me/${channelId}/topics`)).json.topics.map((x: { name: string }) => x.name);
    t.deepEqual(after, ['other']);
    t.deepEqual((await history(m, [{ operator: 'channel', operand: channelId }])).map((x) => x.content), ['stays']);
  } finally {
    await server?.kill('SIGTERM');
    await site.close();
  }
});
