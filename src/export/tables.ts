// What a realm export holds: each table, which of its rows belong to the realm (and to the export type), and how
// the importer rewrites the IDs in a row. Tables are listed parents first; the importer loads them in this order.
import { generateApiKey } from '../auth/secrets.js';
import { channelRecipientId, conversationIdOf, directRecipientId } from '../model/messages.js';
import type { ExportType, Row } from './archive.js';

/** Old ID -> new ID per table, filled as the importer inserts rows. */
export interface IdMaps {
  get(table: string, oldId: unknown): number;
  /** null stays null; an ID whose row was not exported becomes null. */
  opt(table: string, oldId: unknown): number | null;
  oldRealmId: number;
  newRealmId: number;
  /** Notes a row's old ID as being of some kind (e.g. a profile field whose values are user IDs). */
  mark(kind: string, oldId: unknown): void;
  marked(kind: string, oldId: unknown): boolean;
}

export interface TableSpec {
  name: string;
  /** The serial primary key the importer renumbers from the table's sequence. */
  id?: 'id';
  /** SQL selecting the realm's rows of this export type (`t` the table; $1 realm ID, $2 consenting user IDs);
   *  null: not exported in this type. */
  select(type: ExportType): string | null;
  /** Rewrites a row's references to other tables (in place) before it is inserted; `row.id` is still the old one. */
  remap(row: Row, m: IdMaps): void;
  /** Columns written after every table is loaded (they may reference rows inserted later): set to their default at
   *  insert, then updated with `remapLate`. */
  late?: string[];
  remapLate?(row: Row, m: IdMaps): void;
  /** Removes what this export type must not carry (in place). */
  scrub?(row: Row, type: ExportType): void;
}

/** Tables deliberately left out: per-server or transient state, and secrets of links and devices. */
export const NOT_EXPORTED = [
  'external_changes', 'event_queue_dumps', 'email_outbox', 'server_secrets', 'user_presence', 'push_devices',
  'multiuse_invites', 'email_invites', 'invitation_sends', 'signup_confirmations', 'push_device_tokens', 'realm_exports', 'schema_migrations',
  'cluster_leases', 'event_socket_tickets',
];

/** Which messages the export type includes: every message (full), public channels only (public), or also the
 *  messages a consenting user received (full_with_consent), as the reference's export types do. */
export function visibleMessage(type: ExportType, m: string): string {
  const publicChannel = `(${m}.recipient_kind = 'stream' AND EXISTS (SELECT 1 FROM channels c WHERE c.id = ${m}.stream_id AND NOT c.invite_only))`;
  if (type === 'full') return 'true';
  if (type === 'public') return publicChannel;
  return `(${publicChannel} OR EXISTS (SELECT 1 FROM user_messages cu WHERE cu.message_id = ${m}.id AND cu.user_id = ANY($2)))`;
}

/** Which uploads the export type includes: all in a full export, else those a included message links. */
function exportedAttachment(type: ExportType, a: string): string {
  if (type === 'full') return 'true';
  return `EXISTS (SELECT 1 FROM attachment_messages am JOIN messages m ON m.id = am.message_id WHERE am.attachment_id = ${a}.id AND ${visibleMessage(type, 'm')})`;
}

/** A user's own data: everyone's in a full export, the consenting users' with consent, nobody's in a public one. */
function personal(type: ExportType, sql: string, userColumn = 't.user_id'): string | null {
  if (type === 'public') return null;
  return type === 'full' ? sql : `${sql} AND ${userColumn} = ANY($2)`;
}

/** custom_profile_fields.field_type of a field whose values are user IDs. */
const USERS_FIELD = 6;

const sortedIds = (ids: number[]) => [...ids].sort((a, b) => a - b);
const userIds = (v: unknown, m: IdMaps) => (Array.isArray(v) ? v.map((id) => m.get('users', id)) : v);

/** A group-setting value: a group ID, or {direct_members: user IDs, direct_subgroups: group IDs}. */
function groupSetting(v: unknown, m: IdMaps): unknown {
  if (typeof v === 'number') return m.get('user_groups', v);
  if (v && typeof v === 'object') {
    const o = v as { direct_members?: number[]; direct_subgroups?: number[] };
    return {
      ...o,
      direct_members: (o.direct_members ?? []).map((id) => m.get('users', id)),
      direct_subgroups: (o.direct_subgroups ?? []).map((id) => m.get('user_groups', id)),
    };
  }
  return v;
}

function groupSettings(v: unknown, m: IdMaps): unknown {
  if (!v || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, groupSetting(x, m)]));
}

/** Upload URLs and the data-*-id attributes and channel links of rendered Markdown, with the new IDs. */
export function remapContent(text: string, m: IdMaps): string {
  return text
    .replace(/\/user_uploads\/(\d+)\//g, (all, realm: string) => (Number(realm) === m.oldRealmId ? `/user_uploads/${m.newRealmId}/` : all))
    .replace(/(data-user-id=")(\d+)(")/g, (_a, p: string, id: string, s: string) => `${p}${m.opt('users', Number(id)) ?? id}${s}`)
    .replace(/(data-stream-id=")(\d+)(")/g, (_a, p: string, id: string, s: string) => `${p}${m.opt('channels', Number(id)) ?? id}${s}`)
    .replace(/(data-user-group-id=")(\d+)(")/g, (_a, p: string, id: string, s: string) => `${p}${m.opt('user_groups', Number(id)) ?? id}${s}`)
    .replace(/(#narrow\/(?:channel|stream)\/)(\d+)(?=[-/"&)\s]|$)/g, (_a, p: string, id: string) => `${p}${m.opt('channels', Number(id)) ?? id}`);
}

function remapEditHistory(v: unknown, m: IdMaps): unknown {
  if (!Array.isArray(v)) return v;
  return v.map((e: Row) => {
    const out: Row = { ...e };
    if (typeof e.user_id === 'number') out.user_id = m.opt('users', e.user_id);
    if (typeof e.stream === 'number') out.stream = m.opt('channels', e.stream);
    if (typeof e.prev_stream === 'number') out.prev_stream = m.opt('channels', e.prev_stream);
    for (const k of ['prev_content', 'prev_rendered_content']) if (typeof e[k] === 'string') out[k] = remapContent(e[k] as string, m);
    return out;
  });
}

/** "<realm_id>/..." path IDs move to the new realm. */
export const remapPathId = (pathId: string, m: IdMaps) => pathId.replace(/^\d+\//, `${m.newRealmId}/`);

const realmRow = (row: Row, m: IdMaps) => {
  row.realm_id = m.newRealmId;
};

export const TABLES: TableSpec[] = [
  {
    name: 'realms',
    id: 'id',
    select: () => 'SELECT * FROM realms t WHERE t.id = $1',
    remap: () => undefined,
    late: ['settings', 'group_settings'],
    remapLate(row, m) {
      const settings = { ...(row.settings as Row) };
      for (const [k, v] of Object.entries(settings)) {
        if (k.endsWith('_stream_id') && typeof v === 'number' && v > 0) settings[k] = m.opt('channels', v) ?? -1;
      }
      row.settings = settings;
      row.group_settings = groupSettings(row.group_settings, m);
    },
  },
  {
    name: 'users',
    id: 'id',
    select: () => 'SELECT * FROM users t WHERE t.realm_id = $1',
    remap: realmRow,
    // Credentials travel only in a full (operator's) export; the importer makes new API keys for the others.
    scrub(row, type) {
      if (type !== 'full') {
        delete row.api_key;
        delete row.password_hash;
      }
    },
    late: ['bot_owner_id'],
    remapLate(row, m) {
      row.bot_owner_id = m.opt('users', row.bot_owner_id);
    },
  },
  {
    name: 'user_groups',
    id: 'id',
    select: () => 'SELECT * FROM user_groups t WHERE t.realm_id = $1',
    remap(row, m) {
      realmRow(row, m);
      row.creator_id = m.opt('users', row.creator_id);
    },
    late: ['group_settings'],
    remapLate(row, m) {
      row.group_settings = groupSettings(row.group_settings, m);
    },
  },
  {
    name: 'user_group_members',
    select: () => 'SELECT t.* FROM user_group_members t JOIN user_groups g ON g.id = t.group_id WHERE g.realm_id = $1',
    remap(row, m) {
      row.group_id = m.get('user_groups', row.group_id);
      row.user_id = m.get('users', row.user_id);
    },
  },
  {
    name: 'user_group_subgroups',
    select: () => 'SELECT t.* FROM user_group_subgroups t JOIN user_groups g ON g.id = t.group_id WHERE g.realm_id = $1',
    remap(row, m) {
      row.group_id = m.get('user_groups', row.group_id);
      row.subgroup_id = m.get('user_groups', row.subgroup_id);
    },
  },
  {
    name: 'channel_folders',
    id: 'id',
    select: () => 'SELECT * FROM channel_folders t WHERE t.realm_id = $1',
    remap(row, m) {
      realmRow(row, m);
      row.creator_id = m.opt('users', row.creator_id);
    },
  },
  {
    name: 'channels',
    id: 'id',
    select: () => 'SELECT * FROM channels t WHERE t.realm_id = $1',
    remap(row, m) {
      realmRow(row, m);
      row.folder_id = m.opt('channel_folders', row.folder_id);
      row.creator_id = m.opt('users', row.creator_id);
      row.group_settings = groupSettings(row.group_settings, m);
      row.rendered_description = remapContent(String(row.rendered_description), m);
    },
  },
  {
    name: 'subscriptions',
    select: () => 'SELECT * FROM subscriptions t WHERE t.realm_id = $1',
    remap(row, m) {
      realmRow(row, m);
      row.user_id = m.get('users', row.user_id);
      row.channel_id = m.get('channels', row.channel_id);
    },
  },
  {
    name: 'default_channels',
    select: () => 'SELECT * FROM default_channels t WHERE t.realm_id = $1',
    remap(row, m) {
      realmRow(row, m);
      row.channel_id = m.get('channels', row.channel_id);
    },
  },
  {
    name: 'user_topics',
    select: (type) => personal(type, 'SELECT t.* FROM user_topics t JOIN users u ON u.id = t.user_id WHERE u.realm_id = $1'),
    remap(row, m) {
      row.user_id = m.get('users', row.user_id);
      row.channel_id = m.get('channels', row.channel_id);
    },
  },
  {
    name: 'direct_conversations',
    id: 'id',
    select: (type) => (type === 'public' ? null : type === 'full' ? 'SELECT * FROM direct_conversations t WHERE t.realm_id = $1' : 'SELECT * FROM direct_conversations t WHERE t.realm_id = $1 AND t.member_ids && $2::int[]'),
    remap(row, m) {
      realmRow(row, m);
      row.member_ids = sortedIds((row.member_ids as number[]).map((id) => m.get('users', id)));
    },
  },
  {
    name: 'messages',
    id: 'id',
    select: (type) => `SELECT * FROM messages t WHERE t.realm_id = $1 AND ${visibleMessage(type, 't')}`,
    remap(row, m) {
      realmRow(row, m);
      row.sender_id = m.get('users', row.sender_id);
      if (row.recipient_kind === 'stream') {
        row.stream_id = m.get('channels', row.stream_id);
        row.recipient_id = channelRecipientId(row.stream_id as number);
      } else {
        row.direct_recipients = sortedIds(userIds(row.direct_recipients, m) as number[]);
        row.recipient_id = directRecipientId(m.get('direct_conversations', conversationIdOf(row.recipient_id as number)));
      }
      row.content = remapContent(String(row.content), m);
      row.rendered_content = remapContent(String(row.rendered_content), m);
      row.edit_history = remapEditHistory(row.edit_history, m);
    },
  },
  {
    name: 'user_messages',
    select: (type) => `SELECT t.* FROM user_messages t JOIN messages m ON m.id = t.message_id WHERE m.realm_id = $1 AND ${visibleMessage(type, 'm')}`,
    remap(row, m) {
      row.user_id = m.get('users', row.user_id);
      row.message_id = m.get('messages', row.message_id);
    },
  },
  {
    name: 'reactions',
    id: 'id',
    select: (type) => `SELECT t.* FROM reactions t JOIN messages m ON m.id = t.message_id WHERE m.realm_id = $1 AND ${visibleMessage(type, 'm')}`,
    remap(row, m) {
      row.user_id = m.get('users', row.user_id);
      row.message_id = m.get('messages', row.message_id);
    },
  },
  {
    name: 'attachments',
    id: 'id',
    select: (type) => `SELECT * FROM attachments t WHERE t.realm_id = $1 AND ${exportedAttachment(type, 't')}`,
    remap(row, m) {
      realmRow(row, m);
      row.owner_id = m.get('users', row.owner_id);
      row.path_id = remapPathId(String(row.path_id), m);
    },
  },
  {
    name: 'attachment_messages',
    select: (type) => `SELECT t.* FROM attachment_messages t JOIN messages m ON m.id = t.message_id WHERE m.realm_id = $1 AND ${visibleMessage(type, 'm')}`,
    remap(row, m) {
      row.attachment_id = m.get('attachments', row.attachment_id);
      row.message_id = m.get('messages', row.message_id);
    },
  },
  {
    name: 'image_attachments',
    // Thumbnails are not carried: the importing server makes them again (an empty list is "pending").
    select: (type) => `SELECT t.* FROM image_attachments t JOIN attachments a ON a.path_id = t.path_id WHERE t.realm_id = $1 AND ${exportedAttachment(type, 'a')}`,
    remap(row, m) {
      realmRow(row, m);
      row.path_id = remapPathId(String(row.path_id), m);
      row.thumbnails = [];
    },
  },
  {
    name: 'realm_emoji',
    id: 'id',
    select: () => 'SELECT * FROM realm_emoji t WHERE t.realm_id = $1',
    remap(row, m) {
      realmRow(row, m);
      row.author_id = m.opt('users', row.author_id);
    },
  },
  {
    name: 'linkifiers',
    id: 'id',
    select: () => 'SELECT * FROM linkifiers t WHERE t.realm_id = $1',
    remap: realmRow,
  },
  {
    name: 'custom_profile_fields',
    id: 'id',
    select: () => 'SELECT * FROM custom_profile_fields t WHERE t.realm_id = $1',
    remap(row, m) {
      if (row.field_type === USERS_FIELD) m.mark('users_field', row.id);
      realmRow(row, m);
    },
  },
  {
    name: 'custom_profile_field_values',
    select: () => 'SELECT t.* FROM custom_profile_field_values t JOIN custom_profile_fields f ON f.id = t.field_id WHERE f.realm_id = $1',
    remap(row, m) {
      // A users field holds a JSON list of user IDs.
      if (m.marked('users_field', row.field_id)) row.value = JSON.stringify((JSON.parse(String(row.value)) as number[]).map((id) => m.get('users', id)));
      row.user_id = m.get('users', row.user_id);
      row.field_id = m.get('custom_profile_fields', row.field_id);
      if (typeof row.rendered_value === 'string') row.rendered_value = remapContent(row.rendered_value, m);
    },
  },
  {
    name: 'realm_playgrounds',
    id: 'id',
    select: () => 'SELECT * FROM realm_playgrounds t WHERE t.realm_id = $1',
    remap: realmRow,
  },
  {
    name: 'muted_users',
    select: (type) => personal(type, 'SELECT t.* FROM muted_users t JOIN users u ON u.id = t.user_id WHERE u.realm_id = $1'),
    remap(row, m) {
      row.user_id = m.get('users', row.user_id);
      row.muted_user_id = m.get('users', row.muted_user_id);
    },
  },
  {
    name: 'bot_settings',
    select: () => 'SELECT t.* FROM bot_settings t JOIN users u ON u.id = t.user_id WHERE u.realm_id = $1',
    remap(row, m) {
      row.user_id = m.get('users', row.user_id);
      row.default_sending_stream_id = m.opt('channels', row.default_sending_stream_id);
      row.default_events_register_stream_id = m.opt('channels', row.default_events_register_stream_id);
    },
    // An outgoing webhook's token is a credential, as API keys are: only a full export carries it.
    scrub(row, type) {
      if (type !== 'full' && row.service_token !== null) row.service_token = generateApiKey();
    },
  },
  {
    name: 'bot_storage',
    select: (type) => personal(type, 'SELECT t.* FROM bot_storage t JOIN users u ON u.id = t.user_id WHERE u.realm_id = $1'),
    remap(row, m) {
      row.user_id = m.get('users', row.user_id);
    },
  },
  {
    name: 'user_statuses',
    select: () => 'SELECT t.* FROM user_statuses t JOIN users u ON u.id = t.user_id WHERE u.realm_id = $1',
    remap(row, m) {
      row.user_id = m.get('users', row.user_id);
    },
  },
  ...(['alert_words', 'saved_snippets', 'navigation_views'] as const).map(
    (name): TableSpec => ({
      name,
      id: 'id',
      select: (type) => personal(type, `SELECT * FROM ${name} t WHERE t.realm_id = $1`),
      remap(row, m) {
        realmRow(row, m);
        row.user_id = m.get('users', row.user_id);
      },
    }),
  ),
  {
    name: 'drafts',
    id: 'id',
    select: (type) => personal(type, 'SELECT * FROM drafts t WHERE t.realm_id = $1'),
    remap(row, m) {
      realmRow(row, m);
      row.user_id = m.get('users', row.user_id);
      const ids = row.recipients as number[];
      row.recipients = row.type === 'stream' ? ids.map((id) => m.get('channels', id)) : row.type === 'private' ? ids.map((id) => m.get('users', id)) : ids;
    },
  },
  {
    name: 'scheduled_messages',
    id: 'id',
    select: (type) => personal(type, 'SELECT * FROM scheduled_messages t WHERE t.realm_id = $1', 't.sender_id'),
    remap(row, m) {
      realmRow(row, m);
      row.sender_id = m.get('users', row.sender_id);
      row.stream_id = m.opt('channels', row.stream_id);
      if (Array.isArray(row.user_ids)) row.user_ids = sortedIds(userIds(row.user_ids, m) as number[]);
      row.delivered_message_id = m.opt('messages', row.delivered_message_id);
      row.reminder_target_message_id = m.opt('messages', row.reminder_target_message_id);
      row.content = remapContent(String(row.content), m);
      row.rendered_content = remapContent(String(row.rendered_content), m);
    },
  },
];
