// Clients keep their queues across a graceful restart, and a real client library's register → poll →
// re-register loop receives every event exactly once.
import test from 'ava';
import { createRequire } from 'node:module';
import type { RealmEvent } from '../../src/bus/events.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';

const require = createRequire(import.meta.url);
const zulipInit = require('zulip-js') as (config: { username: string; apiKey: string; realm: string }) => Promise<any>;

function publisher(s: TestServer) {
  const realmId = s.server.services.realms.directory[0]!.id;
  return (...events: RealmEvent[]) => s.server.services.hub.publishEvents(realmId, events);
}

test('a graceful restart keeps queues: same queue_id, unacknowledged events, continuing ids', async (t) => {
  const first = await startTestServer();
  let s = first;
  try {
    const alice = await addUser(s, { fullName: 'Alice' });
    const q = (await s.client.as(alice).post('/register', { form: { event_types: '["custom_test"]' } })).json;
    publisher(s)(
      { event: { type: 'custom_test', n: 1 }, users: [alice.id] },
      { event: { type: 'custom_test', n: 2 }, users: [alice.id] },
      { event: { type: 'custom_test', n: 3 }, users: [alice.id] },
      { event: { type: 'other_type' }, users: [alice.id] },
    );
    const first = await s.client.as(alice).get('/events', { query: { queue_id: q.queue_id, last_event_id: '-1', dont_block: 'true' } });
    t.deepEqual(first.json.events.map((e: { id: number }) => e.id), [0, 1, 2]);
    // Acknowledge the first event only, then restart.
    await s.client.as(alice).get('/events', { query: { queue_id: q.queue_id, last_event_id: '0', dont_block: 'true' } });
    await s.stop();
    s = await startTestServer({ reuse: { dataDir: s.dataDir, databaseUrl: s.databaseUrl } });

    const after = await s.client.as(alice).get('/events', { query: { queue_id: q.queue_id, last_event_id: '0', dont_block: 'true' } });
    t.is(after.status, 200);
    t.deepEqual(after.json.events, [{ type: 'custom_test', n: 2, id: 1 }, { type: 'custom_test', n: 3, id: 2 }]);
    publisher(s)({ event: { type: 'custom_test', n: 4 }, users: [alice.id] }, { event: { type: 'other_type' }, users: [alice.id] });
    const more = await s.client.as(alice).get('/events', { query: { queue_id: q.queue_id, last_event_id: '2', dont_block: 'true' } });
    t.deepEqual(more.json.events, [{ type: 'custom_test', n: 4, id: 3 }], 'ids continue and event_types still applies');
  } finally {
    await s.close();
    // The first server owns the database: dropped (and its connection released) only now.
    if (first !== s) await first.close();
  }
});

test('zulip-js: register, poll with last_event_id, re-register on BAD_EVENT_QUEUE_ID; nothing missed or doubled', async (t) => {
  const s = await startTestServer();
  try {
    const bob = await addUser(s, { fullName: 'Bob' });
    const publish = publisher(s);
    const client = await zulipInit({ username: bob.email, apiKey: bob.apiKey, realm: `http://127.0.0.1:${s.port}` });

    const received: number[] = [];
    const queueIds: string[] = [];
    let stop = false;
    let badQueueSeen = 0;
    const loop = (async () => {
      let queueId: string | null = null;
      let lastEventId = -1;
      while (!stop) {
        if (!queueId) {
          const reg = await client.queues.register({ event_types: ['custom_test'] });
          if (reg.result !== 'success') throw new Error(JSON.stringify(reg));
          queueId = reg.queue_id as string;
          lastEventId = reg.last_event_id;
          queueIds.push(queueId);
        }
        const res = await client.events.retrieve({ queue_id: queueId, last_event_id: lastEventId, dont_block: false });
        if (res.result === 'error') {
          if (res.code !== 'BAD_EVENT_QUEUE_ID') throw new Error(JSON.stringify(res));
          badQueueSeen++;
          queueId = null;
          continue;
        }
        for (const e of res.events) {
          lastEventId = Math.max(lastEventId, e.id);
          if (e.type === 'custom_test') received.push(e.seq);
        }
      }
    })();

    const waitFor = async (cond: () => boolean) => {
      for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
      if (!cond()) throw new Error('timed out waiting');
    };
    let seq = 0;
    for (let round = 0; round < 6; round++) {
      await waitFor(() => queueIds.length === (round < 3 ? 1 : 2));
      for (let i = 0; i < 50; i++) publish({ event: { type: 'custom_test', seq: seq++ }, users: [bob.id] });
      await waitFor(() => received.length === seq);
      if (round === 2) {
        // The server garbage-collects the queue; the client must notice and register again.
        s.server.services.queues.delete(queueIds[0]!);
      }
    }
    stop = true;
    publish({ event: { type: 'custom_test', seq: -1 }, users: [bob.id] }); // wakes the parked poll so the loop ends
    await loop;

    const expected = Array.from({ length: 300 }, (_, i) => i);
    t.deepEqual(received.filter((n) => n >= 0), expected, 'every event once, in order');
    t.is(badQueueSeen, 1);
    t.is(queueIds.length, 2);
  } finally {
    await s.close();
  }
});
