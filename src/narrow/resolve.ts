// Resolves parsed narrow terms (names, emails, `with`) to IDs, with Zulip's errors for unknown users and channels.
import { checkChannelDmConflict, narrowError } from './parse.js';
import { parseSearch } from './search.js';
import type { NarrowTerm, ResolvedTerm } from './types.js';

/** The conversation a `with` message belongs to. For direct messages, the participants (viewer optional). */
export type WithConversation =
  | { kind: 'stream'; channelId: number; topic: string }
  | { kind: 'direct'; userIds: number[] };

export interface NarrowResolver {
  /** Channel by name (string operand, case-insensitive as the caller sees fit) or by ID (number operand). */
  channelByNameOrId(x: string | number): { id: number } | undefined;
  /** User by email (string operand) or by ID (number operand). */
  userByEmailOrId(x: string | number): { id: number } | undefined;
  /**
   * Hook for `with`: the conversation of a message the viewer may access, or undefined when it does not exist
   * or is not accessible. Without this hook `with` does not filter at all (like `near`).
   */
  conversationOfMessage?(messageId: number): WithConversation | undefined;
  /** The realm's web-public channels, for `channels:web-public`; without this hook that term matches nothing. */
  webPublicChannelIds?(): number[];
}

export interface ResolveOptions {
  /**
   * What an unknown channel does. 'error' (default) is what Zulip's GET /messages and matches_narrow do
   * (NarrowBuilder.by_channel raises "Invalid narrow operator: unknown channel X"). 'match-nothing' makes the
   * term match no message (negated: every message), which is how Zulip's event-queue narrow filter behaves
   * since it compares channel names and never looks them up.
   */
  unknownChannel?: 'error' | 'match-nothing';
}

/** Zulip's can_narrow_define_conversation: the narrow alone names one conversation. */
function definesConversation(terms: readonly NarrowTerm[]): boolean {
  if (terms.some((t) => t.operator === 'dm')) return true;
  return terms.some((t) => t.operator === 'channel') && terms.some((t) => t.operator === 'topic');
}

/** Zulip's update_narrow_terms_containing_with_operator: `with` replaces the conversation terms. */
function applyWith(terms: NarrowTerm[], resolver: NarrowResolver): NarrowTerm[] {
  const withTerm = terms.find((t) => t.operator === 'with');
  if (!withTerm) return terms;
  const rest = terms.filter((t) => t !== withTerm);
  if (!resolver.conversationOfMessage) return rest;
  const conv = resolver.conversationOfMessage(withTerm.operand as number);
  if (!conv) {
    if (definesConversation(rest)) return rest;
    throw narrowError("Invalid 'with' operator");
  }
  const kept = rest.filter((t) => !['channel', 'topic', 'dm'].includes(t.operator));
  const head: NarrowTerm[] =
    conv.kind === 'stream'
      ? [
          { operator: 'channel', operand: conv.channelId, negated: false },
          { operator: 'topic', operand: conv.topic, negated: false },
        ]
      : [{ operator: 'dm', operand: conv.userIds, negated: false }];
  return [...head, ...kept];
}

function dmDescription(operand: string[] | number[]): string {
  // Zulip formats the operand with Python's str(): the email string as sent, or "[1, 2]".
  return typeof operand[0] === 'number' ? `[${operand.join(', ')}]` : operand.join(',');
}

function userId(resolver: NarrowResolver, x: string | number): number {
  const u = resolver.userByEmailOrId(x);
  if (!u) throw narrowError(`unknown user ${x}`);
  return u.id;
}

function resolveTerm(t: NarrowTerm, resolver: NarrowResolver, options: ResolveOptions): ResolvedTerm | null {
  const negated = t.negated;
  switch (t.operator) {
    case 'channel': {
      const c = resolver.channelByNameOrId(t.operand);
      if (c) return { op: 'channel', channelId: c.id, negated };
      if ((options.unknownChannel ?? 'error') === 'error') throw narrowError(`unknown channel ${t.operand}`);
      return { op: 'none', negated };
    }
    case 'channels':
      if (t.operand === 'public') return { op: 'channels-public', negated };
      return resolver.webPublicChannelIds
        ? { op: 'channel-ids', channelIds: resolver.webPublicChannelIds(), negated }
        : { op: 'none', negated };
    case 'topic':
      return { op: 'topic', topic: t.operand, negated };
    case 'sender':
      return { op: 'sender', userId: userId(resolver, t.operand), negated };
    case 'dm': {
      // Zulip: an empty list names no conversation, so the term matches nothing.
      if (t.operand.length === 0) return { op: 'none', negated };
      const ids: number[] = [];
      for (const x of t.operand) {
        const u = resolver.userByEmailOrId(x);
        if (!u) throw narrowError(`unknown user in ${dmDescription(t.operand)}`);
        ids.push(u.id);
      }
      return { op: 'dm', userIds: [...new Set(ids)].sort((a, b) => a - b), negated };
    }
    case 'dm-including':
    case 'group-pm-with':
      return {
        op: 'dm-including',
        userId: userId(resolver, t.operand),
        groupOnly: t.operator === 'group-pm-with',
        negated,
      };
    case 'is':
      return { op: 'is', what: t.operand, negated };
    case 'has':
      return { op: 'has', what: t.operand, negated };
    case 'in':
      // in:home hides what muting hides, i.e. it is -is:muted; in:all is no filter.
      return t.operand === 'home' ? { op: 'is', what: 'muted', negated: !negated } : null;
    case 'id':
      return { op: 'id', id: t.operand, negated };
    case 'near':
    case 'with':
    case 'search':
      return null;
  }
}

/**
 * Resolves names and emails to IDs. Unknown users are errors ("Invalid narrow operator: unknown user X",
 * "unknown user in X" for `dm`), as in Zulip; unknown channels follow `options.unknownChannel`.
 */
export function resolveNarrow(
  terms: readonly NarrowTerm[],
  resolver: NarrowResolver,
  options: ResolveOptions = {},
): ResolvedTerm[] {
  const expanded = applyWith([...terms], resolver);
  // parseNarrow skipped this check when a `with` term was present: it applies to the expanded narrow.
  checkChannelDmConflict(expanded);
  const out: ResolvedTerm[] = [];
  for (const t of expanded) {
    const r = resolveTerm(t, resolver, options);
    if (r) out.push(r);
  }
  // Zulip joins all search operands with spaces into one search.
  const search = expanded.filter((t) => t.operator === 'search').map((t) => t.operand as string);
  if (search.length > 0) out.push({ op: 'search', ...parseSearch(search.join(' ')), negated: false });
  return out;
}
