// Outgoing webhooks end to end: a local HTTP receiver plays the bot's server; mentions and direct messages reach
// it with the reference's payload, its answers come back as the bot's messages, failures reach the conversation
// and the owner, and a bot that never answers delays nobody else.
import test from 'ava';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { addUser, type TestUser } from '../helpers/users.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

type Handler = (body: any, res: ServerResponse) => void;

/** A bot server on loopback: records every payload and answers with `handler`. */
async function receiver(handler: Handler) {
  const payloads: any[] = [];
  const open = new Set<ServerResponse>();
  const server = createServer((req: IncomingMessage, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const form = req.headers['content-type'] === 'application/x-www-form-urlencoded';
      const body = form ? Object.fromEntries(new URLSearchParams(raw)) : JSON.parse(raw);
      payloads.push(body);
      open.add(res);
      res.on('close', () => open.delete(res));
      handler(body, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    url,
    payloads,
    close: () => {
      for (const res of open) res.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

let s: TestServer;
let owner: TestUser;
test.before(async () => {
  // The bot servers here listen on loopback, which deliveries may reach only when allowed.
  s = await startTestServer({ env: { OUTGOING_WEBHOOKS_ALLOW_PRIVATE: '1' }, outgoingWebhooks: { timeoutMs: 60_000, retryDelayMs: 5 } });
  owner = await addUser(s);
  const sub = await s.client.as(owner).post('/users/me/subscriptions', { form: { subscriptions: JSON.stringify([{ name: 'hooks' }]) } });
  if (sub.status !== 200) throw new Error(JSON.stringify(sub.json));
});
test.after.always(() => s.close());

let n = 0;
async function outgoingBot(url: string, interfaceType = 1) {
  const name = `Hook Bot ${++n}`;
  const res = await s.client.as(owner).post('/bots', {
    form: { full_name: name, short_name: `hook${n}`, bot_type: '3', payload_url: JSON.stringify(url), interface_type: String(interfaceType) },
  });
  if (res.status !== 200) throw new Error(JSON.stringify(res.json));
  return { id: res.json.user_id as number, name };
}

async function messages(narrow: unknown[]) {
  const r = await s.client.as(owner).get('/messages', {
    query: { anchor: 'newest', num_before: '100', num_after: '0', narrow: JSON.stringify(narrow), apply_markdown: 'false' },
  });
  return r.json.messages as any[];
}

/** Polls until `check` returns something (deliveries are asynchronous by design); fails after 20 s. */
async function eventually<T>(check: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const v = await check();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('condition not reached');
}

async function send(form: Record<string, string>) {
  const r = await s.client.as(owner).post('/messages', { form });
  if (r.status !== 200) throw new Error(JSON.stringify(r.json));
  return r.json.id as number;
}
const toChannel = (topic: string, content: string) => send({ type: 'stream', to: 'hooks', topic, content });
const inTopic = (topic: string) => messages([{ operator: 'channel', operand: 'hooks' }, { operator: 'topic', operand: topic }]);

test.serial('a mention reaches the bot with the reference payload; its answer is posted back in the topic', async (t) => {
  const hook = await receiver((body, res) => json(res, 200, { content: `echo: ${body.data}` }));
  const bot = await outgoingBot(hook.url);
  const id = await toChannel('e2e', `@**${bot.name}** hello there`);
  const reply = await eventually(async () => (await inTopic('e2e')).find((m) => m.sender_id === bot.id));
  t.is(reply.content, `echo: @**${bot.name}** hello there`);
  const [p] = hook.payloads;
  t.is(p.trigger, 'mention');
  t.is(p.data, `@**${bot.name}** hello there`);
  t.is(p.bot_full_name, bot.name);
  t.is(p.message.id, id);
  t.is(p.message.sender_id, owner.id);
  t.is(p.message.type, 'stream');
  const registered = (await s.client.as(owner).post('/register', { form: { fetch_event_types: '["realm_bot"]' } })).json.realm_bots;
  const record = registered.find((b: any) => b.user_id === bot.id);
  t.is(p.token, record.services[0].token);
  t.is(p.bot_email, record.email);
  // The bot's own message (it mentions nobody, and bots never trigger bots) was not sent back to it.
  t.is(hook.payloads.length, 1);
  await hook.close();
});

test.serial('a direct message triggers direct_message; response_not_required posts nothing', async (t) => {
  const hook = await receiver((body, res) => json(res, 200, body.data === 'quiet' ? { response_not_required: true } : { content: 'pong' }));
  const bot = await outgoingBot(hook.url);
  const dm = [{ operator: 'dm', operand: [bot.id] }];
  await send({ type: 'direct', to: JSON.stringify([bot.id]), content: 'quiet' });
  await send({ type: 'direct', to: JSON.stringify([bot.id]), content: 'ping' });
  await eventually(async () => ((await messages(dm)).some((m) => m.content === 'pong') ? true : undefined));
  t.deepEqual(hook.payloads.map((p) => [p.trigger, p.data]), [['direct_message', 'quiet'], ['direct_message', 'ping']]);
  // The receiver answered the quiet message before the ping was delivered: only pong was posted.
  t.deepEqual((await messages(dm)).filter((m) => m.sender_id === bot.id).map((m) => m.content), ['pong']);
  await hook.close();
});

test.serial('an unreachable bot: retries, then "Bot is unavailable" in the topic and a direct message to the owner', async (t) => {
  const closed = await receiver(() => undefined);
  await closed.close(); // nothing listens on its port now
  const bot = await outgoingBot(closed.url);
  await toChannel('down', `@**${bot.name}** are you there?`);
  const failure = await eventually(async () => (await inTopic('down')).find((m) => m.sender_id === bot.id));
  t.is(failure.content, 'Failure! Bot is unavailable');
  const notice = await eventually(async () =>
    (await messages([{ operator: 'dm', operand: [bot.id] }])).find((m) => m.sender_id === bot.id && m.content.includes('triggered an outgoing webhook')),
  );
  t.true(notice.content.includes(`to your bot @_**${bot.name}**`));
  t.true(notice.content.includes('A connection error occurred. Is my bot server down?'));
});

test.serial('an error status is not retried: "Third party responded with 500" and the status reported to the owner', async (t) => {
  const hook = await receiver((_body, res) => json(res, 500, { oops: true }));
  const bot = await outgoingBot(hook.url);
  await toChannel('error', `@**${bot.name}** break`);
  const failure = await eventually(async () => (await inTopic('error')).find((m) => m.sender_id === bot.id));
  t.is(failure.content, 'Failure! Third party responded with 500');
  const notice = await eventually(async () =>
    (await messages([{ operator: 'dm', operand: [bot.id] }])).find((m) => m.content.includes('status code *500*')),
  );
  t.true(notice.content.includes('{"oops":true}'));
  t.is(hook.payloads.length, 1);
  await hook.close();
});

test.serial('the payload quoted to the owner stays in its code block whatever backticks it holds', async (t) => {
  const hook = await receiver((_body, res) => {
    res.writeHead(500);
    res.end('```\n**injected**');
  });
  const bot = await outgoingBot(hook.url);
  await toChannel('fence', `@**${bot.name}** break`);
  const notice = await eventually(async () =>
    (await messages([{ operator: 'dm', operand: [bot.id] }])).find((m) => m.content.includes('status code *500*')),
  );
  t.true(notice.content.endsWith('following payload:\n````\n```\n**injected**\n````'), notice.content);
  await hook.close();
});

test.serial('by default no loopback or link-local payload URL is contacted; the owner hears of a connection error', async (t) => {
  const strict = await startTestServer({ outgoingWebhooks: { timeoutMs: 60_000, retryDelayMs: 5 } });
  try {
    const me = await addUser(strict);
    const api = strict.client.as(me);
    await api.post('/users/me/subscriptions', { form: { subscriptions: JSON.stringify([{ name: 'hooks' }]) } });
    const hook = await receiver((_body, res) => json(res, 200, { content: 'should never be asked' }));
    const urls = [hook.url, hook.url.replace('127.0.0.1', 'localhost'), 'http://169.254.169.254/latest/meta-data/', 'http://[::ffff:127.0.0.1]:9/x'];
    for (const [i, url] of urls.entries()) {
      const created = await api.post('/bots', { form: { full_name: `Inside ${i}`, short_name: `inside${i}`, bot_type: '3', payload_url: JSON.stringify(url) } });
      t.is(created.status, 200);
      const botId = created.json.user_id as number;
      await api.post('/messages', { form: { type: 'stream', to: 'hooks', topic: `inside ${i}`, content: `@**Inside ${i}** hello` } });
      const dms = async () =>
        (await api.get('/messages', { query: { anchor: 'newest', num_before: '20', num_after: '0', narrow: JSON.stringify([{ operator: 'dm', operand: [botId] }]), apply_markdown: 'false' } })).json.messages as any[];
      const notice = await eventually(async () => (await dms()).find((m) => m.sender_id === botId && m.content.includes('triggered an outgoing webhook')));
      t.true(notice.content.includes('A connection error occurred. Is my bot server down?'), url);
      t.false(notice.content.includes('payload'), url);
    }
    t.is(hook.payloads.length, 0);
    await hook.close();
  } finally {
    await strict.close();
  }
});

test.serial('a bot that never answers delays neither other messages nor other bots', async (t) => {
  const silent = await receiver(() => undefined); // holds every request open
  const slowBot = await outgoingBot(silent.url);
  const hook = await receiver((_body, res) => json(res, 200, { content: 'fast answer' }));
  const fastBot = await outgoingBot(hook.url);
  await toChannel('slow', `@**${slowBot.name}** take your time`);
  await eventually(async () => (silent.payloads.length === 1 ? true : undefined));
  // While the slow bot's request is open: plain messages are sent and another bot answers.
  const plain = await toChannel('slow', 'an ordinary message');
  t.true(plain > 0);
  await toChannel('slow', `@**${fastBot.name}** quick`);
  const fast = await eventually(async () => (await inTopic('slow')).find((m) => m.sender_id === fastBot.id));
  t.is(fast.content, 'fast answer');
  // Ordering, not timing: the fast bot answered while the slow one's request was still unanswered.
  t.false((await inTopic('slow')).some((m) => m.sender_id === slowBot.id));
  t.is(silent.payloads.length, 1);
  await silent.close();
  await hook.close();
});

test.serial('the Slack interface: a form-encoded request, and the answer\'s text posted back', async (t) => {
  const hook = await receiver((_body, res) => json(res, 200, { text: 'slack says hi' }));
  const bot = await outgoingBot(hook.url, 2);
  await toChannel('slack', `@**${bot.name}** hi`);
  const reply = await eventually(async () => (await inTopic('slack')).find((m) => m.sender_id === bot.id));
  t.is(reply.content, 'slack says hi');
  const [p] = hook.payloads;
  t.is(p.text, `@**${bot.name}** hi`);
  t.is(p.trigger_word, 'mention');
  t.is(p.channel_name, 'hooks');
  t.is(p.user_id, `U${owner.id}`);
  t.is(p.token.length, 32);
  await hook.close();
});
