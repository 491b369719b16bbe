// The one table of narrow cases over the fixtures: expected message IDs or the exact error, for both compilers.
import { parseNarrow, resolveNarrow, type ParseOptions, type ResolveOptions, type ResolvedTerm } from '../../src/narrow/index.js';
import { ALL_IDS, CHANNEL_IDS, DM_IDS, VIEWER, allBut, makeResolver } from './fixtures.js';

export interface NarrowCase {
  name: string;
  narrow: unknown;
  parse?: ParseOptions;
  resolve?: ResolveOptions;
  /** Matching fixture IDs, ascending; or the exact error message. */
  expect: number[] | { error: string };
}

const t = (operator: string, operand: unknown, negated?: boolean) =>
  negated === undefined ? { operator, operand } : { operator, operand, negated };
const bad = (desc: string) => ({ error: `Invalid narrow operator: ${desc}` });

export const CASES: NarrowCase[] = [
  // Empty narrow, channels, both forms and aliases.
  { name: 'empty narrow matches everything', narrow: [], expect: ALL_IDS },
  { name: 'channel by name', narrow: [t('channel', 'Denmark')], expect: [101, 102, 106, 113] },
  { name: 'legacy pair stream alias', narrow: [['stream', 'Denmark']], expect: [101, 102, 106, 113] },
  { name: 'channel by ID', narrow: [t('channel', 11)], expect: [103, 105, 112] },
  { name: 'stream alias, object form, name case-insensitive', narrow: [t('stream', 'verona')], expect: [103, 105, 112] },
  { name: 'negated channel keeps DMs', narrow: [t('channel', 'Denmark', true)], expect: allBut(101, 102, 106, 113) },
  { name: 'channels:public', narrow: [t('channels', 'public')], expect: [101, 102, 103, 105, 106, 112, 113] },
  { name: 'negated streams:public alias', narrow: [t('streams', 'public', true)], expect: [104, ...DM_IDS].sort((a, b) => a - b) },
  { name: 'channels:web-public', narrow: [t('channels', 'web-public')], expect: [103, 105, 112] },
  { name: 'negated streams:web-public keeps DMs', narrow: [t('streams', 'web-public', true)], expect: allBut(103, 105, 112) },
  { name: 'unknown channels operand', narrow: [t('channels', 'private')], expect: bad('unknown channels operand private') },
  { name: 'unknown channel is an error (Zulip GET /messages)', narrow: [t('channel', 'Atlantis')], expect: bad('unknown channel Atlantis') },
  { name: 'unknown channel ID is an error', narrow: [t('stream', 999)], expect: bad('unknown channel 999') },
  { name: 'unknown channel, match-nothing policy', narrow: [t('channel', 'Atlantis')], resolve: { unknownChannel: 'match-nothing' }, expect: [] },
  { name: 'negated unknown channel, match-nothing policy', narrow: [t('channel', 'Atlantis', true)], resolve: { unknownChannel: 'match-nothing' }, expect: ALL_IDS },
  // Topics.
  { name: 'topic is case-insensitive', narrow: [t('topic', 'greetings')], expect: [101, 103, 113] },
  { name: 'channel and topic (pairs)', narrow: [['stream', 'Denmark'], ['topic', 'Greetings']], expect: [101, 113] },
  { name: 'empty topic', narrow: [t('topic', '')], expect: [104] },
  { name: 'empty-topic name mapped when the caller says so', narrow: [t('topic', '(no topic)')], parse: { emptyTopicNames: ['(no topic)'] }, expect: [104] },
  { name: 'empty-topic name literal otherwise', narrow: [t('topic', '(no topic)')], expect: [] },
  { name: 'negated topic keeps DMs', narrow: [t('topic', 'plans', true)], expect: allBut(105, 106, 112) },
  { name: 'topic operand must be a string', narrow: [t('topic', 5)], expect: { error: 'operand is not a string' } },
  // Senders.
  { name: 'sender by email', narrow: [t('sender', 'hamlet@example.com')], expect: [101, 105, 107] },
  { name: 'sender by ID', narrow: [t('sender', 3)], expect: [103, 109, 111, 113] },
  { name: 'negated sender', narrow: [t('sender', 3, true)], expect: allBut(103, 109, 111, 113) },
  { name: 'unknown sender', narrow: [t('sender', 'nobody@example.com')], expect: bad('unknown user nobody@example.com') },
  { name: 'sender operand must be string or integer', narrow: [t('sender', [2])], expect: { error: 'operand is not a string or integer' } },
  // Direct messages.
  { name: 'dm by ID list', narrow: [t('dm', [2])], expect: [107, 108] },
  { name: 'dm by email string', narrow: [t('dm', 'hamlet@example.com')], expect: [107, 108] },
  { name: 'legacy pair pm-with alias', narrow: [['pm-with', 'hamlet@example.com']], expect: [107, 108] },
  { name: 'group dm by IDs', narrow: [t('dm', [3, 2])], expect: [109] },
  { name: 'group dm by emails', narrow: [t('dm', 'othello@example.com, hamlet@example.com')], expect: [109] },
  { name: 'dm with oneself', narrow: [t('dm', [1])], expect: [110] },
  { name: 'dm naming the viewer too', narrow: [t('dm', [1, 2])], expect: [107, 108] },
  { name: 'dm empty list matches nothing', narrow: [t('dm', [])], expect: [] },
  { name: 'dm conversation that does not exist', narrow: [t('dm', [4])], expect: [] },
  { name: 'dm with unknown user ID', narrow: [t('dm', [999])], expect: bad('unknown user in [999]') },
  { name: 'dm with unknown email', narrow: [t('dm', 'hamlet@example.com,x@y.z')], expect: bad('unknown user in hamlet@example.com,x@y.z') },
  { name: 'dm list of non-integers', narrow: [t('dm', ['hamlet@example.com'])], expect: { error: 'operand[0] is not an integer' } },
  { name: 'negated dm', narrow: [t('dm', [2], true)], expect: allBut(107, 108) },
  { name: 'dm-including a user', narrow: [t('dm-including', 2)], expect: [107, 108, 109] },
  { name: 'dm-including the viewer is every DM', narrow: [t('dm-including', 'iago@example.com')], expect: DM_IDS },
  { name: 'group-pm-with: group conversations only', narrow: [t('group-pm-with', 'hamlet@example.com')], expect: [109] },
  { name: 'group_pm_with underscore alias', narrow: [t('group_pm_with', 3)], expect: [109, 114] },
  // is:
  { name: 'is:dm', narrow: [t('is', 'dm')], expect: DM_IDS },
  { name: 'is:private legacy pair', narrow: [['is', 'private']], expect: DM_IDS },
  { name: 'negated is:dm', narrow: [t('is', 'dm', true)], expect: CHANNEL_IDS },
  { name: 'is:starred', narrow: [t('is', 'starred')], expect: [102] },
  { name: 'is:unread', narrow: [t('is', 'unread')], expect: [103, 107, 111, 113] },
  { name: 'is:unread in channels', narrow: [t('is', 'unread'), t('is', 'dm', true)], expect: [103, 113] },
  { name: 'is:mentioned includes wildcards', narrow: [t('is', 'mentioned')], expect: [103, 106, 109] },
  { name: 'is:alerted', narrow: [t('is', 'alerted')], expect: [105] },
  { name: 'is:resolved', narrow: [t('is', 'resolved')], expect: [102] },
  { name: 'negated is:resolved', narrow: [t('is', 'resolved', true)], expect: allBut(102) },
  { name: 'is:followed', narrow: [t('is', 'followed')], expect: [105] },
  { name: 'is:muted', narrow: [t('is', 'muted')], expect: [104, 112] },
  { name: 'in:home hides muted', narrow: [t('in', 'home')], expect: allBut(104, 112) },
  { name: 'in:all', narrow: [['in', 'all']], expect: ALL_IDS },
  { name: 'unknown is operand', narrow: [t('is', 'bogus')], expect: bad("unknown 'is' operand bogus") },
  // has:
  { name: 'has:link', narrow: [t('has', 'link')], expect: [102, 111] },
  { name: 'has:attachment', narrow: [t('has', 'attachment')], expect: [104] },
  { name: 'has:image', narrow: [['has', 'image']], expect: [104] },
  { name: 'has:reaction', narrow: [t('has', 'reaction')], expect: [105, 111] },
  { name: 'negated has:link', narrow: [t('has', 'link', true)], expect: allBut(102, 111) },
  { name: 'unknown has operand', narrow: [t('has', 'video')], expect: bad("unknown 'has' operand video") },
  // id, near, with.
  { name: 'id as integer', narrow: [t('id', 105)], expect: [105] },
  { name: 'id as string', narrow: [['id', '105']], expect: [105] },
  { name: 'negated id', narrow: [t('id', 105, true)], expect: allBut(105) },
  { name: 'id not a number', narrow: [t('id', 'abc')], expect: bad('Invalid message ID') },
  { name: 'near does not filter', narrow: [t('channel', 'Verona'), t('near', '105')], expect: [103, 105, 112] },
  { name: 'negated near still does not filter', narrow: [t('near', '105', true)], expect: ALL_IDS },
  { name: 'near operand must be a string', narrow: [t('near', 105)], expect: { error: 'operand is not a string' } },
  { name: 'with a channel message narrows to its topic', narrow: [t('with', 101)], expect: [101, 113] },
  { name: 'with replaces conversation terms', narrow: [t('channel', 'Verona'), t('topic', 'plans'), t('with', '113')], expect: [101, 113] },
  { name: 'with a DM, plus is:unread', narrow: [t('with', 107), t('is', 'unread')], expect: [107] },
  { name: 'with an inaccessible message alone', narrow: [t('with', 999)], expect: bad("Invalid 'with' operator") },
  { name: 'with an inaccessible message in a conversation narrow', narrow: [t('dm', [2]), t('with', 999)], expect: [107, 108] },
  { name: 'with not a number', narrow: [t('with', 'x')], expect: bad("Invalid 'with' operator") },
  { name: 'duplicate with', narrow: [t('with', 101), t('with', 107)], expect: { error: "Invalid narrow operator combination: Duplicate 'with' operators." } },
  // search.
  { name: 'search a word', narrow: [t('search', 'hello')], expect: [101, 103] },
  { name: 'search is a word-prefix match', narrow: [t('search', 'hel')], expect: [101, 103] },
  { name: 'search matches the topic, any case', narrow: [t('search', 'GREET')], expect: [101, 103, 113] },
  { name: 'search needs every word', narrow: [t('search', 'plan launch')], expect: [106] },
  { name: 'search word prefix in topics and text', narrow: [t('search', 'plan')], expect: [105, 106, 112] },
  { name: 'search quoted phrase', narrow: [t('search', '"big launch"')], expect: [106] },
  { name: 'search quoted phrase in another order', narrow: [t('search', '"launch big"')], expect: [] },
  { name: 'search non-ASCII word', narrow: [t('search', 'CAFÉ')], expect: [105] },
  { name: 'search folds non-ASCII case', narrow: [t('search', 'école')], expect: [111] },
  { name: 'search inside an email address', narrow: [t('search', 'mail')], expect: [111] },
  { name: 'search text between entities', narrow: [t('search', 'now')], expect: [106] },
  { name: 'search never matches entity names', narrow: [t('search', 'quot')], expect: [] },
  { name: 'search never matches tags or attributes', narrow: [t('search', 'mention')], expect: [] },
  { name: 'search sees formatted text', narrow: [t('search', 'bold')], expect: [112] },
  { name: 'search punctuation splits words', narrow: [t('search', 'foo_bar')], expect: [113] },
  { name: 'search hyphenated', narrow: [t('search', 'x-ray')], expect: [104] },
  { name: 'search without any word matches nothing', narrow: [t('search', '!!!')], expect: [] },
  { name: 'two search terms are one search', narrow: [t('search', 'hello'), ['search', 'world']], expect: [101] },
  { name: 'negated search is ignored, as in Zulip', narrow: [t('search', 'hello', true)], expect: [101, 103] },
  { name: 'blank search', narrow: [t('search', '  ')], expect: { error: 'operand cannot be blank.' } },
  { name: 'search with other operators', narrow: [t('search', 'handshake'), t('is', 'unread')], expect: [107] },
  // Combinations and malformed narrows.
  { name: 'channel, sender and has together', narrow: [t('channel', 'Verona'), t('sender', 2), t('has', 'reaction')], expect: [105] },
  { name: 'channel and dm conflict', narrow: [t('channel', 'Denmark'), t('dm', [2])], expect: bad('No message can be both a channel message and direct message') },
  { name: 'topic and is:dm conflict', narrow: [['topic', 'plans'], ['is', 'dm']], expect: bad('No message can be both a channel message and direct message') },
  { name: 'negated is:dm is a channel narrow', narrow: [t('is', 'dm', true), t('dm-including', 2)], expect: bad('No message can be both a channel message and direct message') },
  { name: 'negated channel with is:dm is fine', narrow: [t('channel', 'Denmark', true), t('is', 'dm')], expect: DM_IDS },
  { name: 'unknown operator', narrow: [t('foo', 'bar')], expect: bad('unknown operator foo') },
  { name: 'legacy pair with an integer', narrow: [['id', 5]], expect: { error: 'element is not a string pair' } },
  { name: 'legacy triple', narrow: [['stream', 'Denmark', 'x']], expect: { error: 'element is not a string pair' } },
  { name: 'missing operand', narrow: [{ operator: 'stream' }], expect: { error: 'operand is missing' } },
  { name: 'missing operator', narrow: [{ operand: 'Denmark' }], expect: { error: 'operator is missing' } },
  { name: 'negated must be a boolean', narrow: [t('stream', 'Denmark', 'yes' as unknown as boolean)], expect: { error: 'negated is not a boolean' } },
  { name: 'element neither dict nor list', narrow: [5], expect: { error: 'dict or list required' } },
  { name: 'narrow not a list', narrow: { operator: 'stream', operand: 'Denmark' }, expect: { error: 'narrow is not a list' } },
];

/** Parses and resolves a case's narrow against the fixtures (throws on invalid narrows). */
export function resolveCase(c: NarrowCase): ResolvedTerm[] {
  return resolveNarrow(parseNarrow(c.narrow, c.parse), makeResolver(), c.resolve);
}

export { VIEWER };
