// fast-check: random narrows over random messages select the same IDs through the predicate and through SQL.
import test from 'ava';
import fc from 'fast-check';
import { ApiError } from '../../src/errors.js';
import { compilePredicate, compileSql, parseNarrow, resolveNarrow, type NarrowMessage } from '../../src/narrow/index.js';
import { CHANNELS, VIEWER, makeResolver } from './fixtures.js';
import { COLUMNS, createSchema, dropSchema, loadMessages, openDb, sqlMatches, type TestDb } from './pg.js';

let db: TestDb;

test.before(async () => {
  db = await openDb();
  await createSchema(db);
});

test.after.always(async () => {
  if (!db) return;
  await dropSchema(db);
  await db.close();
});

/** [Markdown source, rendered HTML] fragments message bodies are made of. */
const FRAGMENTS: [string, string][] = [
  ['alpha', 'alpha'], ['Alphabet', 'Alphabet'], ['beta', 'beta'], ['café', 'café'], ['CAFÉ', 'CAFÉ'], ['日本語', '日本語'],
  ['x-ray', 'x-ray'], ['e.mail@foo.com', '<a href="mailto:e.mail@foo.com">e.mail@foo.com</a>'], ['foo_bar', 'foo_bar'],
  ['**bold**', '<strong>bold</strong>'], ['&', '&amp;'], ['<tag>', '&lt;tag&gt;'], ['😀', '😀'], ['it’s', 'it’s'],
  ['naïve', 'naïve'], ['3.14', '3.14'], ['a1b2', 'a1b2'], ['"quoted phrase"', '&quot;quoted phrase&quot;'],
  ['ÉCOLE', 'ÉCOLE'], ['e\u0301cole', 'e\u0301cole'], ['hello', 'hello'], ['HELLO', 'HELLO'], ['world', 'world'],
  ['plan', 'plan'], ['plans', 'plans'], ['big launch', 'big launch'], ['launch', 'launch'], ['Ωmega', 'Ωmega'],
  ['[link](https://alpha.example)', '<a href="https://alpha.example">link</a>'], ['über', 'über'], ['ÜBER', 'ÜBER'],
];
const TOPICS = ['greetings', 'GREETINGS', 'plans', '✔ fixed', '✔fixed', '', 'Ünïcode', 'café', 'CAFÉ', 'big launch'];
const SEARCH_WORDS = ['alpha', 'beta', 'café', 'cafe', '日本', 'x-ray', 'ray', 'mail', 'foo', 'bar', 'bold', 'strong',
  'amp', 'tag', 'lt', 'it', 's', 'naïve', '3', '14', 'a1', 'école', 'hello', 'world', 'plan', 'launch', 'big', 'link',
  'example', 'https', 'über', 'ωmega', 'greet', 'fixed', '✔', 'quoted', 'phrase', 'Ünï', '😀', 'href', 'quot'];
const PHRASES = ['"quoted phrase"', '"big launch"', '"hello world"', '"x-ray"', '"BIG"', '"a"'];
const FLAGS = ['read', 'starred', 'mentioned', 'stream_wildcard_mentioned', 'topic_wildcard_mentioned', 'has_alert_word'];

const messageArb = fc.record({
  direct: fc.boolean(),
  channelId: fc.constantFrom(...CHANNELS.map((c) => c.id)),
  topic: fc.constantFrom(...TOPICS),
  others: fc.uniqueArray(fc.integer({ min: 2, max: 5 }), { maxLength: 3 }),
  senderPick: fc.nat(),
  fragments: fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 6 }),
  flags: fc.subarray(FLAGS),
  has: fc.tuple(fc.boolean(), fc.boolean(), fc.boolean(), fc.boolean()),
  followed: fc.boolean(),
  muted: fc.boolean(),
});

type MessageRecord = typeof messageArb extends fc.Arbitrary<infer T> ? T : never;

function toMessage(r: MessageRecord, id: number): NarrowMessage {
  const recipients = r.direct ? [VIEWER.id, ...r.others].sort((a, b) => a - b) : [];
  return {
    id,
    senderId: r.direct ? recipients[r.senderPick % recipients.length]! : 1 + (r.senderPick % 5),
    kind: r.direct ? 'direct' : 'stream',
    channelId: r.direct ? null : r.channelId,
    topic: r.direct ? '' : r.topic,
    directRecipients: recipients,
    content: r.fragments.map((f) => f[0]).join(' '),
    renderedContent: `<p>${r.fragments.map((f) => f[1]).join(' ')}</p>`,
    flags: new Set(r.flags),
    hasLink: r.has[0],
    hasAttachment: r.has[1],
    hasImage: r.has[2],
    hasReaction: r.has[3],
    channelIsPublic: !r.direct && CHANNELS.find((c) => c.id === r.channelId)!.isPublic,
    // Stored for direct messages too: the compilers must ignore them there alike.
    topicIsFollowed: r.followed,
    topicIsMuted: r.muted,
  };
}

const negated = fc.boolean();
const user = fc.constantFrom<string | number>(1, 2, 3, 4, 5, 'hamlet@example.com', 'iago@example.com');
const searchOperand = fc.oneof(
  fc
    .array(fc.tuple(fc.constantFrom(...SEARCH_WORDS), fc.integer({ min: 1, max: 8 }), fc.boolean()), { minLength: 1, maxLength: 3 })
    .map((ws) => ws.map(([w, n, upper]) => ((s) => (upper ? s.toUpperCase() : s))([...w].slice(0, n).join(''))).join(' ')),
  fc.tuple(fc.constantFrom(...PHRASES), fc.constantFrom('', 'plan', 'hel')).map(([p, w]) => `${p} ${w}`.trim()),
);
const termArb = fc.oneof(
  fc.record({ operator: fc.constantFrom('channel', 'stream'), operand: fc.constantFrom<string | number>('Denmark', 'verona', 'Secret', 10, 11, 12, 'Atlantis'), negated }),
  fc.record({ operator: fc.constantFrom('channels', 'streams'), operand: fc.constant('public'), negated }),
  fc.record({ operator: fc.constant('topic'), operand: fc.constantFrom(...TOPICS, 'Plans', 'ünïcode'), negated }),
  fc.record({ operator: fc.constant('sender'), operand: user, negated }),
  fc.record({ operator: fc.constantFrom('dm', 'pm-with'), operand: fc.uniqueArray(fc.integer({ min: 1, max: 5 }), { maxLength: 3 }), negated }),
  fc.record({ operator: fc.constantFrom('dm-including', 'group-pm-with'), operand: user, negated }),
  fc.record({ operator: fc.constant('is'), operand: fc.constantFrom('dm', 'private', 'starred', 'mentioned', 'unread', 'resolved', 'followed', 'muted', 'alerted'), negated }),
  fc.record({ operator: fc.constant('has'), operand: fc.constantFrom('link', 'attachment', 'image', 'reaction'), negated }),
  fc.record({ operator: fc.constant('in'), operand: fc.constantFrom('home', 'all'), negated }),
  fc.record({ operator: fc.constant('id'), operand: fc.integer({ min: 1, max: 10 }), negated }),
  fc.record({ operator: fc.constant('near'), operand: fc.constant('3'), negated }),
  fc.record({ operator: fc.constant('with'), operand: fc.integer({ min: 1, max: 10 }) }),
  fc.record({ operator: fc.constant('search'), operand: searchOperand, negated }),
);

test.serial('predicate and SQL agree on random narrows over random messages', async (t) => {
  const stats = { compared: 0, refused: 0, partial: 0 };
  await fc.assert(
    fc.asyncProperty(
      fc.array(messageArb, { minLength: 1, maxLength: 10 }),
      fc.array(fc.array(termArb, { maxLength: 4 }), { minLength: 1, maxLength: 5 }),
      async (records, narrows) => {
        const messages = records.map((r, i) => toMessage(r, i + 1));
        await loadMessages(db, messages, VIEWER);
        const resolver = makeResolver(messages);
        for (const narrow of narrows) {
          let resolved;
          try {
            resolved = resolveNarrow(parseNarrow(narrow), resolver, { unknownChannel: 'match-nothing' });
          } catch (e) {
            if (!(e instanceof ApiError)) throw e;
            stats.refused++;
            continue;
          }
          const viaPredicate = messages.filter(compilePredicate(resolved, VIEWER)).map((m) => m.id);
          const viaSql = await sqlMatches(db, resolved, VIEWER);
          stats.compared++;
          if (viaPredicate.length > 0 && viaPredicate.length < messages.length) stats.partial++;
          if (JSON.stringify(viaSql) !== JSON.stringify(viaPredicate)) {
            const sql = compileSql(resolved, VIEWER, COLUMNS, 1);
            t.log({ narrow, predicate: viaPredicate, sql: viaSql, where: sql.where, params: sql.params });
            return false;
          }
        }
        return true;
      },
    ),
    { numRuns: 300 },
  );
  t.log(stats);
  // The generators must exercise real filtering, not only errors or trivial results.
  t.true(stats.compared > 600);
  t.true(stats.partial > stats.compared / 8);
});
