// The router hands one object per (published event, flags, form) to every queue that gets that form, so a delivery to
// many queues copies nothing per queue; the sender's queue and capability variants get their own.
import test from 'ava';
import { EventHub } from '../../src/bus/hub.js';
import type { ClientEvent } from '../../src/events/event-batch.js';
import { QueueRegistry } from '../../src/events/queue-registry.js';
import { capabilitiesFrom, type QueueRegistration } from '../../src/events/registration.js';
import { EventRouter } from '../../src/events/router.js';

function registration(clientGravatar: boolean): QueueRegistration {
  return {
    eventTypes: null,
    narrow: [],
    allPublicStreams: false,
    applyMarkdown: false,
    clientGravatar,
    slimPresence: false,
    includeSubscribers: 'false',
    capabilities: capabilitiesFrom({}),
    clientName: 'test',
  };
}

function setup() {
  const hub = new EventHub({ error: () => undefined });
  const queues = new QueueRegistry();
  const router = new EventRouter(hub, queues, () => ({ channelByNameOrId: () => undefined, userByEmailOrId: () => undefined }));
  /** What each queue holds, as the stored objects themselves (a dont_block poll's batch). */
  const held = (queueId: string, userId: number): readonly ClientEvent[] => {
    let out: readonly ClientEvent[] = [];
    const off = queues.on('deliver', (e) => {
      if (e.queueId === queueId) out = e.batch.events;
    });
    queues.poll(queueId, userId, { handle: 1, lastEventId: -1, dontBlock: true });
    off();
    return out;
  };
  return { hub, queues, router, held };
}

test('queues with the same form and flags share one object; other flags, forms and the sender queue do not', (t) => {
  const { hub, router, held } = setup();
  const a1 = router.create(1, 10, registration(true));
  const a2 = router.create(1, 10, registration(true));
  const b = router.create(1, 11, registration(true));
  const c = router.create(1, 12, registration(true));
  const sender = router.create(1, 13, registration(true));
  const gravatars = router.create(1, 11, registration(false));
  hub.publishEvents(1, [
    {
      event: { type: 'realm_user', op: 'update', person: { user_id: 5, avatar_url: 'https://secure.gravatar.com/avatar/x' } },
      users: [{ id: 10, flags: ['read'] }, { id: 11, flags: ['read'] }, { id: 12, flags: [] }, { id: 13, flags: ['read'] }],
      senderQueue: { queueId: sender, localId: '1.5' },
    },
  ]);
  const [ea1, ea2, eb, ec, es, eg] = [held(a1, 10), held(a2, 10), held(b, 11), held(c, 12), held(sender, 13), held(gravatars, 11)].map((x) => {
    t.is(x.length, 1);
    return x[0]!;
  });
  t.is(ea1, ea2, "one user's two queues: the same object");
  t.is(ea1, eb, 'two users with the same flags: the same object');
  t.not(ea1, ec, 'other flags: another object');
  t.deepEqual(ec.flags, []);
  t.not(es, ea1, 'the sender queue has its own copy');
  t.is(es.local_message_id, '1.5');
  t.is(ea1.local_message_id, undefined);
  t.not(eg, eb, 'another form: another object');
  t.is((eb.person as { avatar_url: unknown }).avatar_url, null, 'client_gravatar form');
  t.is((eg.person as { avatar_url: unknown }).avatar_url, 'https://secure.gravatar.com/avatar/x');
});

test('several published events at once: each queue gets them in one delivery, numbered in order', (t) => {
  const { hub, queues, router } = setup();
  const q = router.create(1, 10, registration(true));
  queues.poll(q, 10, { handle: 'parked', lastEventId: -1, dontBlock: false });
  const got: unknown[] = [];
  queues.on('deliver', (e) => got.push(e.batch.toJSON()));
  hub.publishEvents(1, [
    { event: { type: 'custom_a' }, users: [10] },
    { event: { type: 'custom_b' }, users: [10] },
  ]);
  t.deepEqual(got, [[{ type: 'custom_a', id: 0 }, { type: 'custom_b', id: 1 }]]);
});

test('events of a change the working set had read when a queue registered skip that queue only (cluster: a batch arriving after the load that read it)', (t) => {
  const { router, held } = setup();
  // Snapshots as pg_current_snapshot() gives them: transaction 99 committed before `after`, not before `before`.
  const before = '90:95:';
  const after = '100:110:105';
  const registeredAfter = router.create(1, 10, registration(true), -1, after);
  const registeredBefore = router.create(1, 10, registration(true), -1, before);
  const unknown = router.create(1, 10, registration(true));
  const event = { event: { type: 'subscription', op: 'add', subscriptions: [{ stream_id: 7 }] }, users: [10] };
  router.route(1, [event], '99');
  t.is(held(registeredAfter, 10).length, 0, 'its snapshot shows the change');
  t.is(held(registeredBefore, 10).length, 1);
  t.is(held(unknown, 10).length, 1);
  // In progress when the snapshot was taken: not in it.
  router.route(1, [event], '105');
  t.is(held(registeredAfter, 10).length, 1);
});
