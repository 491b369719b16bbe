// Compiles resolved narrow terms into an in-memory predicate over messages; must agree with sql.ts term by term.
import { foldCase, matchesSearch } from './search.js';
import { RESOLVED_TOPIC_PREFIX, type NarrowMessage, type NarrowViewer, type ResolvedTerm } from './types.js';

type Test = (m: NarrowMessage) => boolean;

const HAS_FIELDS = {
  link: 'hasLink',
  attachment: 'hasAttachment',
  image: 'hasImage',
  reaction: 'hasReaction',
} as const;

const MENTION_FLAGS = ['mentioned', 'stream_wildcard_mentioned', 'topic_wildcard_mentioned'];

function sameSet(have: readonly number[], want: ReadonlySet<number>): boolean {
  return have.every((x) => want.has(x)) && [...want].every((x) => have.includes(x));
}

function isTest(what: Extract<ResolvedTerm, { op: 'is' }>['what']): Test {
  switch (what) {
    case 'dm':
      return (m) => m.kind === 'direct';
    case 'starred':
      return (m) => m.flags.has('starred');
    case 'unread':
      return (m) => !m.flags.has('read');
    case 'mentioned':
      return (m) => MENTION_FLAGS.some((f) => m.flags.has(f));
    case 'alerted':
      return (m) => m.flags.has('has_alert_word');
    case 'resolved':
      return (m) => m.kind === 'stream' && m.topic.startsWith(RESOLVED_TOPIC_PREFIX);
    case 'followed':
      return (m) => m.kind === 'stream' && m.topicIsFollowed;
    case 'muted':
      return (m) => m.kind === 'stream' && m.topicIsMuted;
  }
}

function termTest(t: ResolvedTerm, viewer: NarrowViewer): Test {
  switch (t.op) {
    case 'channel':
      return (m) => m.channelId === t.channelId;
    case 'channels-public':
      return (m) => m.kind === 'stream' && m.channelIsPublic;
    case 'channel-ids': {
      const ids = new Set(t.channelIds);
      return (m) => m.channelId !== null && ids.has(m.channelId);
    }
    case 'topic': {
      const topic = foldCase(t.topic);
      return (m) => m.kind === 'stream' && foldCase(m.topic) === topic;
    }
    case 'sender':
      return (m) => m.senderId === t.userId;
    case 'dm': {
      const want = new Set([...t.userIds, viewer.id]);
      return (m) => m.kind === 'direct' && sameSet(m.directRecipients, want);
    }
    case 'dm-including':
      // Zulip: dm-including oneself is every direct message (is:dm).
      if (t.userId === viewer.id && !t.groupOnly) return (m) => m.kind === 'direct';
      return (m) =>
        m.kind === 'direct' &&
        m.directRecipients.includes(t.userId) &&
        m.directRecipients.includes(viewer.id) &&
        (!t.groupOnly || m.directRecipients.length >= 3);
    case 'is':
      return isTest(t.what);
    case 'has': {
      const field = HAS_FIELDS[t.what];
      return (m) => m[field];
    }
    case 'id':
      return (m) => m.id === t.id;
    case 'search':
      return (m) => matchesSearch(t, m);
    case 'none':
      return () => false;
  }
}

/** A predicate telling whether a message (seen by `viewer`) matches all the terms. No terms match everything. */
export function compilePredicate(resolved: readonly ResolvedTerm[], viewer: NarrowViewer): (msg: NarrowMessage) => boolean {
  const tests = resolved.map((t): Test => {
    const f = termTest(t, viewer);
    return t.negated ? (m) => !f(m) : f;
  });
  return (m) => tests.every((f) => f(m));
}
