// Reading message history (GET /messages, POST /messages/flags/narrow): the narrow compiled to SQL over the
// viewer's rows, or over a channel's whole history where they may read it (a spectator: the web-public
// channels' history only), with Zulip's anchor arithmetic.
import { errors } from '../../errors.js';
import type { Db } from '../../persistence/db.js';
import { MESSAGE_COLUMNS, toStoredMessage } from '../../persistence/repos/messages.js';
import type { StoredMessage } from '../../model/messages.js';
import { compileSql, FLAG_BITS, type ResolvedTerm } from '../../narrow/index.js';
import { ROLE, type User } from '../../model/realm.js';
import type { RealmState } from '../state.js';
import { canReadChannelHistory } from '../access/messages.js';
import { narrowColumns } from './narrow-context.js';
import { SPECTATOR_VIEWER_ID, webPublicChannelIds } from './spectator.js';

/** Zulip's LARGER_THAN_MAX_MESSAGE_ID: the anchor `newest` stands for. */
export const LARGER_THAN_MAX_MESSAGE_ID = 10_000_000_000_000_000;
export const MAX_MESSAGES_PER_FETCH = 5000;
/** A narrow's query runs at most this long in the database: cancelled there (statement_timeout), not only abandoned
 *  by the client, so heavy narrows cannot keep the database and the pool's connections busy. */
export const NARROW_STATEMENT_TIMEOUT_MS = 5000;
/** PostgreSQL's query_canceled: a statement timeout, or a cancellation at shutdown. */
const QUERY_CANCELED = '57014';

/** Runs a narrow's query under the statement timeout (SET LOCAL in the same simple query: one round trip, and the
 *  setting ends with it); a cancelled query is a 503 the client may retry with a narrower narrow. */
async function narrowRows(db: Db, sql: string, params: unknown[]): Promise<FoundRow[]> {
  let rows;
  try {
    const results = await db.multi(`SET LOCAL statement_timeout = ${NARROW_STATEMENT_TIMEOUT_MS}; ${sql}`, params);
    rows = results[1]!;
  } catch (err) {
    if ((err as { code?: unknown }).code === QUERY_CANCELED) throw errors.narrowTooSlow(NARROW_STATEMENT_TIMEOUT_MS);
    throw err;
  }
  return rows.map((r) => ({ message: toStoredMessage(r), flags: r.viewer_flags as number }));
}

/** Zulip's parse_anchor_value: `oldest` 0, `newest` the largest ID, `first_unread` null, else a clamped integer. */
export function parseAnchor(raw: string | undefined, useFirstUnread = false): number | null {
  if (useFirstUnread) return null;
  if (raw === undefined) throw errors.missingAnchor();
  if (raw === 'oldest') return 0;
  if (raw === 'newest') return LARGER_THAN_MAX_MESSAGE_ID;
  if (raw === 'first_unread') return null;
  if (!/^\s*-?\d{1,20}\s*$/.test(raw)) throw errors.invalidAnchor();
  return Math.min(Math.max(Number(raw), 0), LARGER_THAN_MAX_MESSAGE_ID);
}

/** The checked range of a history read (GET /messages, POST /messages/flags/narrow). */
export function checkedRange(
  anchor: string | undefined,
  numBefore: number,
  numAfter: number,
  includeAnchor: boolean,
  useFirstUnread = false,
): Range {
  if (numBefore + numAfter > MAX_MESSAGES_PER_FETCH) throw errors.tooManyMessagesRequested(MAX_MESSAGES_PER_FETCH);
  if (numBefore > 0 && numAfter > 0 && !includeAnchor) throw errors.anchorExcludedInMiddle();
  return { anchor: parseAnchor(anchor, useFirstUnread), numBefore, numAfter, includeAnchor };
}

/** Zulip's ok_to_include_history: a positive channel term the viewer may read the history of, and no flag terms. */
export function includesHistory(state: RealmState, viewer: User, narrow: readonly ResolvedTerm[]): boolean {
  let include = false;
  for (const t of narrow) {
    if (t.negated) continue;
    if (t.op === 'channel') {
      const ch = state.channels.byId.get(t.channelId);
      if (ch && canReadChannelHistory(state, viewer, ch)) include = true;
    } else if ((t.op === 'channels-public' || t.op === 'channel-ids') && viewer.role !== ROLE.GUEST) include = true;
  }
  if (narrow.some((t) => t.op === 'is' && !['resolved', 'followed', 'muted'].includes(t.what))) include = false;
  return include;
}

export interface IdCondition {
  op: '<=' | '>=';
  id: number;
}

export interface FoundRow {
  message: StoredMessage;
  flags: number;
}

/** A compiled query for one viewer and narrow: FROM/WHERE text, its parameters and the ID column. */
export class HistoryQuery {
  readonly from: string;
  readonly where: string;
  readonly params: unknown[];
  readonly idCol: string;
  readonly flagsCol: string;

  /** Whether the viewer is a spectator: every message read, so there is no first unread one. */
  private readonly spectator: boolean;

  /** `viewer` null: a spectator, who reads the whole history of web-public channels and nothing else. */
  constructor(state: RealmState, viewer: User | null, narrow: readonly ResolvedTerm[]) {
    this.spectator = viewer === null;
    if (viewer === null) {
      const columns = narrowColumns(state, null, true);
      const base: unknown[] = [state.realm.id, webPublicChannelIds(state)];
      const compiled = compileSql(narrow, { id: SPECTATOR_VIEWER_ID }, columns, base.length);
      this.params = [...base, ...compiled.params];
      this.flagsCol = columns.flags;
      this.from = 'messages m';
      this.where = `m.realm_id = $1 AND m.recipient_kind = 'stream' AND m.stream_id = ANY($2::int[]) AND (${compiled.where})`;
      this.idCol = 'm.id';
      return;
    }
    const history = includesHistory(state, viewer, narrow);
    const columns = narrowColumns(state, viewer.id, history);
    const base: unknown[] = history ? [viewer.id, state.realm.id] : [viewer.id];
    const compiled = compileSql(narrow, viewer, columns, base.length);
    this.params = [...base, ...compiled.params];
    this.flagsCol = columns.flags;
    if (history) {
      // The viewer's row of each message is looked up by its key, message by message, as the scan meets them (a
      // lateral subquery the planner cannot flatten into a join): a plain LEFT JOIN was planned as a read of every
      // row the viewer has, then a filter per message, so a page of a channel cost what the viewer's whole history
      // costs (bench/README.md, "mixed --ramp — the database's share").
      this.from = 'messages m LEFT JOIN LATERAL (SELECT flags FROM user_messages WHERE user_id = $1 AND message_id = m.id LIMIT 1) um ON true';
      this.where = `m.realm_id = $2 AND m.recipient_kind = 'stream' AND (${compiled.where})`;
      this.idCol = 'm.id';
    } else {
      this.from = 'user_messages um JOIN messages m ON m.id = um.message_id';
      this.where = `um.user_id = $1 AND (${compiled.where})`;
      this.idCol = 'um.message_id';
    }
  }

  /** Rows matching the narrow and an ID condition, in `order`, at most `limit`. */
  async rows(db: Db, cond: IdCondition | null, order: 'ASC' | 'DESC', limit: number, extra = ''): Promise<FoundRow[]> {
    if (limit <= 0) return [];
    const { sql, params } = this.rowsQuery(cond, order, limit, extra);
    return narrowRows(db, sql, params);
  }

  /** The statement rows() runs, and its parameters. */
  rowsQuery(cond: IdCondition | null, order: 'ASC' | 'DESC', limit: number, extra = ''): { sql: string; params: unknown[] } {
    const params = [...this.params];
    let where = this.where + extra;
    if (cond) {
      params.push(cond.id);
      where += ` AND ${this.idCol} ${cond.op} $${params.length}`;
    }
    params.push(limit);
    const sql = `SELECT ${MESSAGE_COLUMNS}, ${this.flagsCol} AS viewer_flags FROM ${this.from} WHERE ${where}
      ORDER BY ${this.idCol} ${order} LIMIT $${params.length}`;
    return { sql, params };
  }

  /** The oldest unread message ID matching the narrow, or null. */
  async firstUnread(db: Db): Promise<number | null> {
    // Zulip's find_first_unread_anchor: for spectators everything is read.
    if (this.spectator) return null;
    const found = await this.rows(db, null, 'ASC', 1, ` AND (${this.flagsCol} & ${FLAG_BITS.read}) = 0`);
    return found[0]?.message.id ?? null;
  }

  /** Rows among these IDs that match. */
  async byIds(db: Db, ids: number[]): Promise<FoundRow[]> {
    if (ids.length === 0) return [];
    const params = [...this.params, ids];
    const sql = `SELECT ${MESSAGE_COLUMNS}, ${this.flagsCol} AS viewer_flags FROM ${this.from}
      WHERE ${this.where} AND ${this.idCol} = ANY($${params.length}::bigint[]) ORDER BY ${this.idCol}`;
    return narrowRows(db, sql, params);
  }
}

export interface Range {
  /** null: first_unread. */
  anchor: number | null;
  numBefore: number;
  numAfter: number;
  includeAnchor: boolean;
}

export interface RangeResult {
  rows: FoundRow[];
  anchor: number;
  foundAnchor: boolean;
  foundOldest: boolean;
  foundNewest: boolean;
  historyLimited: boolean;
}

/** Zulip's limit_query_to_range and post_process_limited_query. */
export async function fetchRange(db: Db, q: HistoryQuery, range: Range): Promise<RangeResult> {
  const anchor = range.anchor ?? (await q.firstUnread(db)) ?? LARGER_THAN_MAX_MESSAGE_ID;
  const anchoredToLeft = anchor === 0;
  const anchoredToRight = anchor >= LARGER_THAN_MAX_MESSAGE_ID;
  const numBefore = range.numBefore;
  const numAfter = anchoredToRight ? 0 : range.numAfter;
  const include = range.includeAnchor ? 1 : 0;
  const needBefore = !anchoredToLeft && numBefore > 0;
  const needAfter = !anchoredToRight && numAfter > 0;
  let before: FoundRow[] = [];
  let after: FoundRow[] = [];
  if (needBefore && needAfter) {
    before = await q.rows(db, { op: '<=', id: anchor - 1 }, 'DESC', numBefore);
    after = await q.rows(db, { op: '>=', id: anchor }, 'ASC', numAfter + 1);
  } else if (needBefore) {
    before = await q.rows(db, { op: '<=', id: anchor - (1 - include) }, 'DESC', numBefore + (anchoredToRight ? 0 : include));
  } else if (needAfter) {
    after = await q.rows(db, { op: '>=', id: anchor + (1 - include) }, 'ASC', numAfter + include);
  } else if (include && !anchoredToLeft && !anchoredToRight) {
    after = await q.rows(db, { op: '>=', id: anchor }, 'ASC', 1);
    after = after.filter((r) => r.message.id === anchor);
  }
  const all = [...before.reverse(), ...after];
  let beforeRows: FoundRow[];
  let anchorRows: FoundRow[];
  let afterRows: FoundRow[];
  if (anchoredToRight) {
    [beforeRows, anchorRows, afterRows] = [all, [], []];
  } else {
    beforeRows = all.filter((r) => r.message.id < anchor);
    anchorRows = all.filter((r) => r.message.id === anchor);
    afterRows = all.filter((r) => r.message.id > anchor);
  }
  if (numBefore) beforeRows = beforeRows.slice(-numBefore);
  else if (!anchoredToRight) beforeRows = [];
  if (numAfter) afterRows = afterRows.slice(0, numAfter);
  else afterRows = [];
  if (anchoredToRight && !numBefore) beforeRows = [];
  return {
    rows: [...beforeRows, ...anchorRows, ...afterRows],
    anchor,
    foundAnchor: anchorRows.length === 1,
    foundOldest: anchoredToLeft || beforeRows.length < numBefore,
    foundNewest: anchoredToRight || afterRows.length < numAfter,
    historyLimited: false,
  };
}
