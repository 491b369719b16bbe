// Compiles resolved narrow terms into a parameterized PostgreSQL WHERE fragment; must agree with predicate.ts.
import { containsPattern, tsQueryText } from './search.js';
import { RESOLVED_TOPIC_PREFIX, type IsOperand, type NarrowViewer, type ResolvedTerm } from './types.js';

/** Bits of the per-user message flags integer. */
export const FLAG_BITS = {
  read: 1,
  starred: 2,
  collapsed: 4,
  mentioned: 8,
  stream_wildcard_mentioned: 16,
  topic_wildcard_mentioned: 32,
  has_alert_word: 64,
  historical: 128,
} as const;

/**
 * SQL expressions (written by the caller, never user input) for each message property, e.g.
 * `{ id: 'm.id', kind: 'm.recipient_kind', hasReaction: 'EXISTS (SELECT 1 FROM reactions r WHERE r.message_id = m.id)' }`.
 */
export interface NarrowColumns {
  id: string;
  senderId: string;
  /** Text 'stream' or 'direct'. */
  kind: string;
  /** NULL for direct messages. */
  channelId: string;
  topic: string;
  /** int[] of distinct participant IDs including the sender; empty or NULL for channel messages. */
  directRecipients: string;
  /** The viewer's flags as an integer of FLAG_BITS; must not be NULL (COALESCE history rows to read|historical). */
  flags: string;
  hasLink: string;
  hasAttachment: string;
  hasImage: string;
  hasReaction: string;
  channelIsPublic: string;
  topicFollowed: string;
  /** True when the viewer's muting hides the message (see NarrowMessage.topicIsMuted). */
  topicMuted: string;
  /** tsvector built as searchVectorSql() builds it. */
  searchVector: string;
  /** Markdown source, for "quoted phrase" search. */
  content: string;
}

export interface CompiledSql {
  /**
   * A boolean condition to AND into the caller's WHERE clause; "TRUE" for an empty narrow. Meant for WHERE only:
   * where the predicate says false it may yield NULL, which WHERE treats the same. Topic terms compare
   * lower(topic), so an index on lower(topic) serves them.
   */
  where: string;
  /** Values for $(paramOffset+1) … in order. */
  params: unknown[];
}

class Params {
  readonly values: unknown[] = [];
  private readonly seen = new Map<string, string>();
  constructor(private readonly offset: number) {}

  /** A new placeholder for the value. */
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.offset + this.values.length}`;
  }

  /** A placeholder shared by every use of the same text (e.g. the kind 'stream'), so types stay consistent. */
  shared(value: string): string {
    let ph = this.seen.get(value);
    if (!ph) {
      ph = this.add(value);
      this.seen.set(value, ph);
    }
    return ph;
  }
}

const MENTION_MASK = FLAG_BITS.mentioned | FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned;

class Compiler {
  constructor(
    private readonly c: NarrowColumns,
    private readonly p: Params,
    private readonly viewer: NarrowViewer,
  ) {}

  /** A caller expression, parenthesized. */
  private col(name: keyof NarrowColumns): string {
    return `(${this.c[name]})`;
  }

  private kindIs(kind: 'stream' | 'direct'): string {
    return `${this.col('kind')} = ${this.p.shared(kind)}`;
  }

  private flagSet(mask: number): string {
    return `(${this.col('flags')} & ${this.p.add(mask)}) <> 0`;
  }

  private is(what: IsOperand): string {
    switch (what) {
      case 'dm':
        return this.kindIs('direct');
      case 'starred':
        return this.flagSet(FLAG_BITS.starred);
      case 'unread':
        return `(${this.col('flags')} & ${this.p.add(FLAG_BITS.read)}) = 0`;
      case 'mentioned':
        return this.flagSet(MENTION_MASK);
      case 'alerted':
        return this.flagSet(FLAG_BITS.has_alert_word);
      case 'resolved':
        return `${this.kindIs('stream')} AND starts_with(${this.col('topic')}, ${this.p.add(RESOLVED_TOPIC_PREFIX)})`;
      case 'followed':
        return `${this.kindIs('stream')} AND ${this.col('topicFollowed')}`;
      case 'muted':
        return `${this.kindIs('stream')} AND ${this.col('topicMuted')}`;
    }
  }

  /** The un-negated condition of a term; may be NULL, which term() turns into false. */
  condition(t: ResolvedTerm): string {
    const recipients = this.col('directRecipients');
    switch (t.op) {
      case 'channel':
        return `${this.col('channelId')} = ${this.p.add(t.channelId)}`;
      case 'channels-public':
        return `${this.kindIs('stream')} AND ${this.col('channelIsPublic')}`;
      case 'channel-ids':
        return `${this.col('channelId')} = ANY(${this.p.add(t.channelIds)}::int[])`;
      case 'topic':
        return `${this.kindIs('stream')} AND lower(${this.col('topic')}) = lower(${this.p.add(t.topic)})`;
      case 'sender':
        return `${this.col('senderId')} = ${this.p.add(t.userId)}`;
      case 'dm': {
        const want = this.p.add([...new Set([...t.userIds, this.viewer.id])].sort((a, b) => a - b));
        return `${this.kindIs('direct')} AND ${recipients} @> ${want} AND ${recipients} <@ ${want}`;
      }
      case 'dm-including': {
        if (t.userId === this.viewer.id && !t.groupOnly) return this.kindIs('direct');
        const parts = [
          this.kindIs('direct'),
          `${this.p.add(t.userId)} = ANY(${recipients})`,
          `${this.p.add(this.viewer.id)} = ANY(${recipients})`,
        ];
        if (t.groupOnly) parts.push(`cardinality(${recipients}) >= ${this.p.add(3)}`);
        return parts.join(' AND ');
      }
      case 'is':
        return this.is(t.what);
      case 'has': {
        const field = ({ link: 'hasLink', attachment: 'hasAttachment', image: 'hasImage', reaction: 'hasReaction' } as const)[t.what];
        return this.col(field);
      }
      case 'id':
        return `${this.col('id')} = ${this.p.add(t.id)}`;
      case 'search': {
        if (t.words.length === 0) return 'FALSE';
        const parts = [`${this.col('searchVector')} @@ to_tsquery('simple', ${this.p.add(tsQueryText(t.words))})`];
        for (const phrase of t.phrases) {
          const pattern = this.p.add(containsPattern(phrase));
          parts.push(`(${this.col('content')} ILIKE ${pattern} OR ${this.col('topic')} ILIKE ${pattern})`);
        }
        return parts.join(' AND ');
      }
      case 'none':
        return 'FALSE';
    }
  }

  /**
   * A negated term is made two-valued (a NULL condition counts as false, so its negation holds, as in the
   * predicate). A positive term stays plain so indexes apply: in WHERE, NULL rejects a row just like false.
   */
  term(t: ResolvedTerm): string {
    const cond = this.condition(t);
    return t.negated ? `(${cond}) IS NOT TRUE` : `(${cond})`;
  }
}

/**
 * Compiles the terms to a WHERE fragment for `viewer`. Every value goes through `params`; placeholders start at
 * $(paramOffset + 1), so pass how many parameters the surrounding query already uses.
 */
export function compileSql(
  resolved: readonly ResolvedTerm[],
  viewer: NarrowViewer,
  columns: NarrowColumns,
  paramOffset = 0,
): CompiledSql {
  const params = new Params(paramOffset);
  const compiler = new Compiler(columns, params, viewer);
  const where = resolved.length === 0 ? 'TRUE' : resolved.map((t) => compiler.term(t)).join(' AND ');
  return { where, params: params.values };
}
