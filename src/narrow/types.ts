// Types shared by the narrow parser, resolver and both compilers (predicate and SQL).
import type { MessageAddress } from '../model/messages.js';

/** `is:` operands after alias normalization (`private` becomes `dm`). */
export const IS_OPERANDS = ['dm', 'starred', 'mentioned', 'unread', 'resolved', 'followed', 'muted', 'alerted'] as const;
export type IsOperand = (typeof IS_OPERANDS)[number];

export const HAS_OPERANDS = ['link', 'attachment', 'image', 'reaction'] as const;
export type HasOperand = (typeof HAS_OPERANDS)[number];

/** Zulip's prefix marking a resolved topic. */
export const RESOLVED_TOPIC_PREFIX = '✔ ';

/**
 * One parsed term, operator aliases normalized (stream→channel, streams→channels, pm-with/pm_with→dm,
 * group_pm_with→group-pm-with, is:private→is:dm). Operands still name things (names, emails) or give IDs.
 * `negated` is always false for `search`, `near` and `with`: Zulip ignores negation on those.
 */
export type NarrowTerm =
  | { operator: 'channel'; operand: string | number; negated: boolean }
  | { operator: 'channels'; operand: 'public' | 'web-public'; negated: boolean }
  | { operator: 'topic'; operand: string; negated: boolean }
  | { operator: 'sender'; operand: string | number; negated: boolean }
  /** Emails (a comma-separated string operand, split) or user IDs. */
  | { operator: 'dm'; operand: string[] | number[]; negated: boolean }
  | { operator: 'dm-including'; operand: string | number; negated: boolean }
  /** Deprecated; unlike dm-including it matches group conversations only (as Zulip's by_group_pm_with does). */
  | { operator: 'group-pm-with'; operand: string | number; negated: boolean }
  | { operator: 'is'; operand: IsOperand; negated: boolean }
  | { operator: 'has'; operand: HasOperand; negated: boolean }
  | { operator: 'in'; operand: 'home' | 'all'; negated: boolean }
  | { operator: 'id'; operand: number; negated: boolean }
  | { operator: 'near'; operand: string; negated: false }
  | { operator: 'with'; operand: number; negated: false }
  | { operator: 'search'; operand: string; negated: false };

export type NarrowOperator = NarrowTerm['operator'];

/**
 * A term whose names are resolved to IDs. `near` and `in:all` are gone (they never filter), `with` has been
 * replaced by the conversation it points at, all `search` terms are merged into one (as Zulip does),
 * and `in:home` has become `-is:muted`.
 */
export type ResolvedTerm =
  | { op: 'channel'; channelId: number; negated: boolean }
  | { op: 'channels-public'; negated: boolean }
  /** Messages of one of these channels (`channels:web-public`, resolved against the realm's channels). */
  | { op: 'channel-ids'; channelIds: number[]; negated: boolean }
  | { op: 'topic'; topic: string; negated: boolean }
  | { op: 'sender'; userId: number; negated: boolean }
  /** The conversation with exactly these users plus the viewer. */
  | { op: 'dm'; userIds: number[]; negated: boolean }
  /** Direct conversations of the viewer that include `userId`; `groupOnly` for group-pm-with. */
  | { op: 'dm-including'; userId: number; groupOnly: boolean; negated: boolean }
  | { op: 'is'; what: IsOperand; negated: boolean }
  | { op: 'has'; what: HasOperand; negated: boolean }
  | { op: 'id'; id: number; negated: boolean }
  /** Every word must prefix-match a word of the topic or text; every phrase must occur in the content or topic. */
  | { op: 'search'; words: string[]; phrases: string[]; negated: false }
  /** Matches no message (negated: every message); e.g. an empty `dm` list. */
  | { op: 'none'; negated: boolean };

/** The viewer the narrow is evaluated for (their flags, their conversations). */
export interface NarrowViewer {
  id: number;
}

/** A message as the predicate sees it, from the viewer's point of view. */
export interface NarrowMessage extends MessageAddress {
  id: number;
  senderId: number;
  /** Markdown source. */
  content: string;
  renderedContent: string;
  /** The viewer's flags: read, starred, mentioned, stream_wildcard_mentioned, topic_wildcard_mentioned, has_alert_word, … */
  flags: Set<string>;
  hasLink: boolean;
  hasAttachment: boolean;
  hasImage: boolean;
  hasReaction: boolean;
  channelIsPublic: boolean;
  topicIsFollowed: boolean;
  /** Hidden by the viewer's muting: muted topic, or topic in a muted channel that is not unmuted/followed. */
  topicIsMuted: boolean;
}
