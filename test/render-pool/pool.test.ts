// The render pool: renders on worker threads match the renderer's own output, lookups are answered between rounds,
// and a render past its time limit is abandoned with Zulip's error while the pool goes on rendering.
import test from 'ava';
import { ApiError } from '../../src/errors.js';
import { renderMarkdown, type RenderContext } from '../../src/markdown/index.js';
import { topicKey } from '../../src/markdown/types.js';
import { RenderPool } from '../../src/render-pool/index.js';
import { makeContext } from '../markdown/context.js';

const pool = new RenderPool({ threads: 2, timeLimitMs: 5_000, maxQueue: 100 });
test.after.always(() => pool.close());

const samples = [
  'plain **bold** text',
  '@**Iago** and @**King Hamlet** meet @*support* in #**Verona>lunch** :smile: :zulip:',
  'see #12 and ZUL-7, https://example.com',
  '@**nobody** in #**nowhere** :no_such_emoji:',
  '```python\nprint(1)\n```\n> quote with @**Iago**',
];

for (const content of samples) {
  test(`a worker renders ${JSON.stringify(content.slice(0, 40))} as the renderer does`, async (t) => {
    t.deepEqual(await pool.render(content, makeContext()), renderMarkdown(content, makeContext()));
  });
}

test('lookups are asked only for what the content names, once each', async (t) => {
  const asked: string[] = [];
  const base = makeContext();
  const ctx: RenderContext = {
    ...base,
    userByName: (name) => (asked.push(`user:${name}`), base.userByName(name)),
    emoji: (name) => (asked.push(`emoji:${name}`), base.emoji(name)),
  };
  const r = await pool.render('@**Iago** @**Iago** @**Ghost** :smile:', ctx);
  t.deepEqual(r.mentionedUserIds, [5]);
  t.deepEqual(asked.sort(), ['emoji:smile', 'user:Ghost', 'user:Iago']);
});

test('a batched lookup is answered asynchronously, once per round with all its keys', async (t) => {
  const { topicLatestMessageId: _, ...ctx } = makeContext();
  const calls: unknown[][] = [];
  const batched = {
    topicLatestMessageId: async (keys: unknown[]) => {
      calls.push(keys);
      await new Promise((r) => setTimeout(r, 10));
      return new Map<unknown, unknown>([[topicKey(9, 'lunch'), 7]]);
    },
  };
  const r = await pool.render('#**Verona>lunch** #**Verona>dinner** #**Verona>lunch**', ctx, batched);
  t.deepEqual(calls, [[topicKey(9, 'lunch'), topicKey(9, 'dinner')]]);
  t.deepEqual([...r.html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]), [
    '/#narrow/channel/9-Verona/topic/lunch/with/7',
    '/#narrow/channel/9-Verona/topic/dinner',
    '/#narrow/channel/9-Verona/topic/lunch/with/7',
  ]);
});

test('a render past its time limit is abandoned with "Unable to render message"; the pool renders on', async (t) => {
  const strict = new RenderPool({ threads: 1, timeLimitMs: 1_000, maxQueue: 10 });
  t.teardown(() => strict.close());
  t.is((await strict.render('warm **up**', makeContext())).html, '<p>warm <strong>up</strong></p>');
  // Millions of characters of emphasis and mentions: far more work than the limit allows.
  const heavy = '**a @**Iago** :smile: '.repeat(200_000);
  const err = await t.throwsAsync(strict.render(heavy, makeContext()), { instanceOf: ApiError });
  t.is(err!.message, 'Unable to render message');
  t.is(err!.status, 400);
  t.is(err!.code, 'BAD_REQUEST');
  // The abandoned worker was replaced: the next render succeeds.
  t.is((await strict.render('after', makeContext())).html, '<p>after</p>');
});

test('renders beyond the queue limit are refused with 503', async (t) => {
  const tiny = new RenderPool({ threads: 1, timeLimitMs: 5_000, maxQueue: 1 });
  t.teardown(() => tiny.close());
  await tiny.render('warm', makeContext());
  const content = 'x **y** '.repeat(2_000);
  const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => tiny.render(content, makeContext())));
  const refused = outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason as ApiError);
  t.true(refused.length > 0);
  for (const e of refused) t.is(e.status, 503);
  t.true(outcomes.some((o) => o.status === 'fulfilled'));
});
