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

test('a realm change (a new linkifier list, emoji or user) is seen by the next render', async (t) => {
  const single = new RenderPool({ threads: 1, timeLimitMs: 5_000, maxQueue: 10 });
  t.teardown(() => single.close());
  const content = 'see #12 and PAL-7 :party_parrot: @**Newcomer**';
  const before = makeContext();
  t.deepEqual(await single.render(content, before), renderMarkdown(content, before));
  // The realm replaces its linkifier list on a change; the emoji and the user are new answers of its lookups.
  const after = makeContext({
    linkifiers: [{ id: 3, pattern: 'PAL-(?P<n>[0-9]+)', urlTemplate: 'https://palaver.example/{n}' }],
    emoji: (name) => (name === 'party_parrot' ? { code: '9', type: 'realm_emoji', url: '/e/9.png' } : before.emoji(name)),
    userByName: (name) => (name === 'Newcomer' ? { id: 12, fullName: 'Newcomer' } : before.userByName(name)),
  });
  const r = await single.render(content, after);
  t.deepEqual(r, renderMarkdown(content, after));
  t.regex(r.html, /href="https:\/\/palaver\.example\/7"/);
  t.notRegex(r.html, /github\.com/);
  t.regex(r.html, /\/e\/9\.png/);
  t.deepEqual(r.mentionedUserIds, [12]);
});

test('a worker that lacks a linkifier list (a replaced one) is sent the list again', async (t) => {
  const strict = new RenderPool({ threads: 1, timeLimitMs: 2_000, maxQueue: 10 });
  t.teardown(() => strict.close());
  const ctx = makeContext();
  t.deepEqual(await strict.render('see #12', ctx), renderMarkdown('see #12', ctx));
  // Past its time limit: the worker that knew the list is terminated and replaced by one that never saw it.
  await t.throwsAsync(strict.render('**a @**Iago** :smile: '.repeat(200_000), ctx), { instanceOf: ApiError });
  t.deepEqual(await strict.render('see #13', ctx), renderMarkdown('see #13', ctx));
  t.regex((await strict.render('see #13', ctx)).html, /issues\/13/);
});

test('many renders at once on two workers, with one linkifier list, all render as the renderer does', async (t) => {
  const ctx = makeContext();
  const contents = Array.from({ length: 40 }, (_, i) => `#${i} and ZUL-${i} **${i}** @**Iago**`);
  const rendered = await Promise.all(contents.map((c) => pool.render(c, ctx)));
  t.deepEqual(rendered, contents.map((c) => renderMarkdown(c, ctx)));
});
