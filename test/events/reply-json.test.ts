// GET /events' reply text (src/events/reply-json.ts): each message form's JSON is made once and spliced into every
// queue's reply; the text must equal JSON.stringify of the same reply, for every form and every queue's own fields.
import test from 'ava';
import { eventForQueue } from '../../src/events/queue-form.js';
import { capabilitiesFrom, type QueueRegistration } from '../../src/events/registration.js';
import { EventBatch, type ClientEvent } from '../../src/events/event-batch.js';
import { eventsReplyJson, NAMES_KEPT, shareEvent } from '../../src/events/reply-json.js';
import { startTestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';
import { makeChannel } from '../messages/helpers.js';

function registration(applyMarkdown: boolean, clientGravatar: boolean, emptyTopicName: boolean): QueueRegistration {
  return {
    eventTypes: null,
    narrow: [],
    allPublicStreams: false,
    applyMarkdown,
    clientGravatar,
    slimPresence: false,
    includeSubscribers: 'false',
    capabilities: capabilitiesFrom({ empty_topic_name: emptyTopicName }),
    clientName: 'test',
  };
}

function messageEvent(topic: string) {
  return {
    type: 'message',
    message: {
      id: 42, sender_id: 3, type: 'stream', stream_id: 9, subject: topic, content: 'héllo "quoted" \\ <b>\n\u2028',
      rendered_content: '<p>héllo</p>', avatar_url: 'https://secure.gravatar.com/avatar/x', display_recipient: 'général',
      stream_is_public: true, empty_topic_display_name: 'general chat', reactions: [], submessages: [], timestamp: 1700000000,
      flags_like_key: undefined,
    },
  };
}

const FORMS = [false, true].flatMap((a) => [false, true].flatMap((g) => [false, true].map((e) => registration(a, g, e))));

test('every message form, with each queue own flags, ids and local_message_id, serializes as JSON.stringify does', (t) => {
  for (const topic of ['', 'a topic']) {
    const event = messageEvent(topic);
    // Twice over: the second round splices the remembered text of each form.
    for (let round = 0; round < 2; round++) {
      FORMS.forEach((reg, i) => {
        const shaped = eventForQueue(reg, { ...event, flags: i % 2 ? ['read', 'mentioned'] : [] });
        const events = [
          { ...shaped, id: 7 + i },
          ...(i === 3 ? [{ ...shaped, id: 8 + i, local_message_id: '12.01' }] : []),
          { type: 'heartbeat', id: 20 },
          { type: 'update_message_flags', op: 'add', flag: 'read', messages: [42], all: false, id: 21, gone: undefined },
        ];
        const body = { result: 'success', msg: '', events, queue_id: '0:abc"d', ignored_parameters_unsupported: ['x'] };
        t.is(eventsReplyJson(body), JSON.stringify(body), `form ${i}, topic ${JSON.stringify(topic)}, round ${round}`);
      });
    }
  }
  t.is(eventsReplyJson({ result: 'success', msg: '', events: [], queue_id: 'q' }), '{"result":"success","msg":"","events":[],"queue_id":"q"}');
});

test('the forms differ where they should, so splicing one form into another queue would show', (t) => {
  const event = messageEvent('');
  const texts = new Set(FORMS.map((reg) => eventsReplyJson({ events: [{ ...eventForQueue(reg, event), id: 1 }] })));
  t.is(texts.size, FORMS.length);
});

test('over HTTP: one message reaches queues of every form, each reply parses to that queue own form and flags', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const sender = await addUser(s);
  const other = await addUser(s);
  const channel = { name: `splice-${Date.now().toString(36)}` };
  await makeChannel(s, channel.name, [sender.id, other.id]);
  const queues: { who: typeof sender; q: string; a: boolean; g: boolean; e: boolean }[] = [];
  for (const who of [sender, other]) {
    for (const reg of FORMS) {
      const form = {
        event_types: '["message"]',
        apply_markdown: String(reg.applyMarkdown),
        client_gravatar: String(reg.clientGravatar),
        client_capabilities: JSON.stringify({ empty_topic_name: reg.capabilities.empty_topic_name }),
      };
      const r = await s.client.as(who).post('/register', { form });
      t.is(r.status, 200, r.text);
      queues.push({ who, q: r.json.queue_id, a: reg.applyMarkdown, g: reg.clientGravatar, e: reg.capabilities.empty_topic_name });
    }
  }
  // Park every poll first, so the message answers them all from one delivery.
  const polls = queues.map((x) => s.client.as(x.who).get('/events', { query: { queue_id: x.q, last_event_id: '-1' } }));
  await new Promise((r) => setTimeout(r, 200));
  const sent = await s.client.as(sender).post('/messages', {
    form: { type: 'stream', to: channel.name, topic: '', content: 'plain words', queue_id: queues[0]!.q, local_id: '5.5' },
  });
  t.is(sent.status, 200, sent.text);
  const replies = await Promise.all(polls);
  const flagsOf = new Map<unknown, string[]>();
  replies.forEach((r, i) => {
    const x = queues[i]!;
    t.is(r.status, 200, r.text);
    t.is(r.text, JSON.stringify(r.json), 'the spliced text is plain JSON of the reply');
    const ev = r.json.events.find((e: any) => e.type === 'message');
    t.truthy(ev, r.text);
    t.is(r.json.queue_id, x.q);
    t.is(ev.message.content_type, x.a ? 'text/html' : 'text/x-markdown');
    t.is(ev.message.content, x.a ? '<p>plain words</p>' : 'plain words');
    t.is(ev.message.avatar_url === null, x.g);
    t.is(ev.message.subject === '', x.e);
    t.true(Array.isArray(ev.flags));
    t.deepEqual(ev.flags, flagsOf.get(x.who) ?? (flagsOf.set(x.who, ev.flags), ev.flags), 'a user flags, the same in each form');
    t.is(ev.local_message_id, i === 0 ? '5.5' : undefined, 'local_id only on the sender queue');
  });
});

test("a queue's batch: shared events made once, each queue's ids spliced in; the same content as JSON.stringify", (t) => {
  const shared = { type: 'message', message: { id: 42, content: 'a "b"' }, flags: ['read'], gone: undefined };
  shareEvent(shared);
  // An event with an `id` member of its own: the queue's id replaces it, as the numbered copy's does.
  const withId = { type: 'custom', id: 'own', n: 1 };
  for (const firstId of [0, 41, 41]) {
    const body = { result: 'success', msg: '', events: new EventBatch(firstId, [shared, { type: 'heartbeat' }, withId]), queue_id: 'q' };
    t.deepEqual(JSON.parse(eventsReplyJson(body).toString()), JSON.parse(JSON.stringify(body)));
  }
  t.is(
    eventsReplyJson({ events: new EventBatch(7, [shared, { type: 'heartbeat' }]) }).toString(),
    '{"events":[{"type":"message","message":{"id":42,"content":"a \\"b\\""},"flags":["read"],"id":7},{"type":"heartbeat","id":8}]}',
    'the id comes last',
  );
  t.is(eventsReplyJson({ events: new EventBatch(0, []) }), '{"events":[]}');
});

test('an answer with a shared event is the UTF-8 bytes of JSON.stringify of it, non-ASCII and surrogates included', (t) => {
  const texts = ['héllo €', 'emoji 😀 pair', 'lone \ud800 high', 'lone \udfff low', '\u2028\u2029', 'quote " and \\', ''];
  const shared = texts.map((content, i) => {
    const event: ClientEvent = { type: 'message', message: { id: i, content, subject: content }, flags: i % 2 ? ['read'] : [] };
    shareEvent(event);
    return event;
  });
  const empty = {} as ClientEvent;
  shareEvent(empty);
  for (const events of [shared, [shared[0]!, { type: 'heartbeat' }, shared[1]!], [{ type: 'heartbeat' }, empty, shared[2]!, empty]]) {
    for (const queueId of ['q', '0:é"x']) {
      for (let round = 0; round < 2; round++) {
        const body = { result: 'success', msg: '', events: new EventBatch(41 + round, events), queue_id: queueId };
        const bytes = eventsReplyJson(body);
        t.true(Buffer.isBuffer(bytes), 'bytes, not text');
        t.deepEqual(bytes, Buffer.from(JSON.stringify(body)), `${events.length} events, queue ${queueId}, round ${round}`);
      }
    }
  }
  t.is(typeof eventsReplyJson({ events: new EventBatch(1, [{ type: 'heartbeat' }]) }), 'string', 'no shared event: text');
});

test('string members and member names that need escaping, and more names than are remembered, serialize as JSON.stringify does', (t) => {
  const strings = ['', 'success', '0:8c4e-11', 'a"b', 'back\\slash', 'line\nbreak', 'tab\t', '\u0000', '\u2028\u2029', 'é', '\ud800', 'x\udfff', 'ok'.repeat(150), 'a/b+c=d@e,f.g h:i-j_k'];
  for (const s of strings) {
    const body = { result: 'success', msg: s, events: [], queue_id: s };
    t.is(eventsReplyJson(body), JSON.stringify(body), JSON.stringify(s));
    const named: Record<string, unknown> = { result: 'success', msg: '' };
    named[s] = s;
    t.is(eventsReplyJson(named), JSON.stringify(named), `name ${JSON.stringify(s)}`);
  }
  for (let i = 0; i < NAMES_KEPT + 10; i++) {
    const body = { result: 'success', msg: '', [`name "${i}"`]: i, queue_id: `q${i}` };
    if (i % 500 === 0 || i >= NAMES_KEPT) t.is(eventsReplyJson(body), JSON.stringify(body));
    else eventsReplyJson(body);
  }
});
