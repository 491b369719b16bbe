// A client's view of the register snapshot: applies events to it the way a client does (after Zulip's
// apply_event), so a snapshot plus an operation's events can be compared with a fresh snapshot.
/* eslint-disable @typescript-eslint/no-explicit-any */

type State = Record<string, any>;
type Event = Record<string, any> & { type: string };

function byKey<T extends Record<string, any>>(list: T[] | undefined, key: string, value: unknown): T | undefined {
  return list?.find((x) => x[key] === value);
}

function removeBy(list: any[] | undefined, key: string, values: unknown[]): any[] | undefined {
  return list?.filter((x) => !values.includes(x[key]));
}

function sortedUnique(ids: number[]): number[] {
  return [...new Set(ids)].sort((a, b) => a - b);
}

// unread_msgs, as the reference client keeps it: direct conversations (pms with one other person or oneself,
// huddles with more), channel topics, mentions, and the count of what is not muted.
type UnreadKind =
  | { kind: 'private'; others: number[]; muted: false }
  | { kind: 'stream'; channelId: number; topic: string; muted: boolean };

const MENTION_FLAGS = ['mentioned', 'stream_wildcard_mentioned', 'topic_wildcard_mentioned'];

function isMention(flags: string[]): boolean {
  return flags.some((f) => MENTION_FLAGS.includes(f));
}

/** Whether the viewer has muted this topic (or its channel, without unmuting or following the topic). */
function topicMuted(state: State, channelId: number, topic: string): boolean {
  const policy = (state.user_topics ?? []).find((t: any) => t.stream_id === channelId && t.topic_name.toLowerCase() === topic.toLowerCase())?.visibility_policy ?? 0;
  if (policy === 1) return true;
  const sub = byKey(state.subscriptions, 'stream_id', channelId);
  return sub?.is_muted === true && policy !== 2 && policy !== 3;
}

function unreadKind(state: State, m: any): UnreadKind {
  if (m.type === 'private') {
    return { kind: 'private', others: sortedUnique(m.display_recipient.map((u: any) => u.id).filter((id: number) => id !== state.user_id)), muted: false };
  }
  return { kind: 'stream', channelId: m.stream_id, topic: m.subject, muted: topicMuted(state, m.stream_id, m.subject) };
}

function addUnread(state: State, id: number, k: UnreadKind, mentioned: boolean): void {
  const u = state.unread_msgs;
  const add = (entry: any) => (entry.unread_message_ids = sortedUnique([...entry.unread_message_ids, id]));
  if (k.kind === 'private' && k.others.length <= 1) {
    const other = k.others[0] ?? state.user_id;
    let entry = byKey(u.pms, 'other_user_id', other);
    if (!entry) u.pms.push((entry = { other_user_id: other, sender_id: other, unread_message_ids: [] }));
    add(entry);
  } else if (k.kind === 'private') {
    const key = sortedUnique([...k.others, state.user_id]).join(',');
    let entry = byKey(u.huddles, 'user_ids_string', key);
    if (!entry) u.huddles.push((entry = { user_ids_string: key, unread_message_ids: [] }));
    add(entry);
  } else {
    let entry = u.streams.find((x: any) => x.stream_id === k.channelId && x.topic.toLowerCase() === k.topic.toLowerCase());
    if (!entry) u.streams.push((entry = { stream_id: k.channelId, topic: k.topic, unread_message_ids: [] }));
    add(entry);
  }
  if (!k.muted) u.count++;
  if (mentioned) u.mentions = sortedUnique([...u.mentions, id]);
}

function removeUnread(state: State, id: number): void {
  const u = state.unread_msgs;
  let found = false;
  let muted = false;
  for (const list of ['pms', 'huddles', 'streams'] as const) {
    for (const entry of u[list]) {
      if (!entry.unread_message_ids.includes(id)) continue;
      found = true;
      if (list === 'streams') muted = topicMuted(state, entry.stream_id, entry.topic);
      entry.unread_message_ids = entry.unread_message_ids.filter((x: number) => x !== id);
    }
    u[list] = u[list].filter((entry: any) => entry.unread_message_ids.length > 0);
  }
  if (found && !muted) u.count--;
  u.mentions = u.mentions.filter((x: number) => x !== id);
}

const reducers: Record<string, (state: State, e: Event) => void> = {
  realm_user(state, e) {
    if (!state.realm_users) return;
    if (e.op === 'add') {
      state.realm_users.push(e.person);
    } else if (e.op === 'remove') {
      state.realm_users = removeBy(state.realm_users, 'user_id', [e.person.user_id]);
    } else if (e.op === 'update') {
      const all = [...state.realm_users, ...(state.realm_non_active_users ?? [])];
      const person = byKey(all, 'user_id', e.person.user_id);
      if (!person) return;
      const { user_id: _id, custom_profile_field: field, ...changes } = e.person;
      if (field) {
        // A custom profile field value: set, or removed (value null).
        const data = (person.profile_data ??= {});
        if (field.value === null) delete data[field.id];
        else data[field.id] = field.rendered_value === undefined ? { value: field.value } : { value: field.value, rendered_value: field.rendered_value };
      }
      if ('is_active' in changes) {
        const active = changes.is_active;
        state.realm_users = removeBy(state.realm_users, 'user_id', [person.user_id]);
        state.realm_non_active_users = removeBy(state.realm_non_active_users ?? [], 'user_id', [person.user_id]);
        Object.assign(person, changes);
        (active ? state.realm_users : state.realm_non_active_users).push(person);
      } else {
        Object.assign(person, changes);
      }
      if ('role' in changes) {
        person.is_owner = changes.role === 100;
        person.is_admin = changes.role <= 200;
        person.is_guest = changes.role === 600;
        if (person.user_id === state.user_id) {
          state.is_owner = person.is_owner;
          state.is_admin = person.is_admin;
          state.is_moderator = changes.role === 300;
          state.is_guest = person.is_guest;
        }
      }
      if ('full_name' in changes && person.user_id === state.user_id) state.full_name = changes.full_name;
    }
  },

  realm_bot(state, e) {
    if (!state.realm_bots) return;
    if (e.op === 'add') {
      state.realm_bots = [...removeBy(state.realm_bots, 'user_id', [e.bot.user_id])!, e.bot];
    } else if (e.op === 'delete' || e.op === 'remove') {
      state.realm_bots = removeBy(state.realm_bots, 'user_id', [e.bot.user_id]);
    } else if (e.op === 'update') {
      const bot = byKey(state.realm_bots, 'user_id', e.bot.user_id);
      if (bot) Object.assign(bot, e.bot);
    }
  },

  user_group(state, e) {
    if (!state.realm_user_groups) return;
    const groups = state.realm_user_groups as any[];
    const group = e.group_id !== undefined ? byKey(groups, 'id', e.group_id) : undefined;
    switch (e.op) {
      case 'add':
        groups.push(e.group);
        break;
      case 'remove':
        state.realm_user_groups = removeBy(groups, 'id', [e.group_id]);
        break;
      case 'update':
        if (group) Object.assign(group, e.data);
        break;
      case 'add_members':
        if (group) group.members = sortedUnique([...group.members, ...e.user_ids]);
        break;
      case 'remove_members':
        if (group) group.members = group.members.filter((id: number) => !e.user_ids.includes(id));
        break;
      case 'add_subgroups':
        if (group) group.direct_subgroup_ids = sortedUnique([...group.direct_subgroup_ids, ...e.direct_subgroup_ids]);
        break;
      case 'remove_subgroups':
        if (group) group.direct_subgroup_ids = group.direct_subgroup_ids.filter((id: number) => !e.direct_subgroup_ids.includes(id));
        break;
    }
  },

  stream(state, e) {
    const lists = ['subscriptions', 'unsubscribed', 'never_subscribed', 'streams'].filter((k) => Array.isArray(state[k]));
    if (e.op === 'create') {
      if (state.never_subscribed) state.never_subscribed.push(...e.streams.map((s: any) => ({ ...s, subscribers: s.subscribers ?? [] })));
      if (state.streams) state.streams.push(...e.streams);
    } else if (e.op === 'delete') {
      const ids = e.streams.map((s: any) => s.stream_id);
      for (const k of lists) state[k] = removeBy(state[k], 'stream_id', ids);
    } else if (e.op === 'update') {
      for (const k of lists) {
        const s = byKey(state[k], 'stream_id', e.stream_id);
        if (!s) continue;
        s[e.property] = e.value;
        if (e.rendered_description !== undefined) s.rendered_description = e.rendered_description;
        for (const extra of ['history_public_to_subscribers', 'is_web_public', 'stream_post_policy', 'is_announcement_only']) {
          if (e[extra] !== undefined) s[extra] = e[extra];
        }
      }
    }
  },

  subscription(state, e) {
    if (!state.subscriptions) return;
    const subs = state.subscriptions as any[];
    const all = [...subs, ...(state.unsubscribed ?? []), ...(state.never_subscribed ?? [])];
    switch (e.op) {
      case 'add':
        for (const sub of e.subscriptions) {
          state.unsubscribed = removeBy(state.unsubscribed, 'stream_id', [sub.stream_id]);
          state.never_subscribed = removeBy(state.never_subscribed, 'stream_id', [sub.stream_id]);
          subs.push(sub);
        }
        break;
      case 'remove': {
        const ids = e.subscriptions.map((s: any) => s.stream_id);
        const removed = subs.filter((s) => ids.includes(s.stream_id));
        state.subscriptions = removeBy(subs, 'stream_id', ids);
        if (state.unsubscribed) {
          state.unsubscribed.push(
            ...removed.map((s) => ({
              ...s,
              subscribers: s.subscribers?.filter((u: number) => u !== state.user_id),
              ...(typeof s.subscriber_count === 'number' ? { subscriber_count: s.subscriber_count - 1 } : {}),
            })),
          );
        }
        break;
      }
      case 'update': {
        const sub = byKey(subs, 'stream_id', e.stream_id);
        if (!sub) break;
        sub[e.property] = e.value;
        if (e.property === 'in_home_view') sub.is_muted = !e.value;
        if (e.property === 'is_muted') sub.in_home_view = !e.value;
        break;
      }
      case 'peer_add':
        for (const s of all) {
          if (!e.stream_ids.includes(s.stream_id) || !Array.isArray(s.subscribers)) continue;
          s.subscribers = sortedUnique([...s.subscribers, ...e.user_ids]);
          if (typeof s.subscriber_count === 'number') s.subscriber_count = s.subscribers.length;
        }
        break;
      case 'peer_remove':
        for (const s of all) {
          if (!e.stream_ids.includes(s.stream_id) || !Array.isArray(s.subscribers)) continue;
          s.subscribers = s.subscribers.filter((u: number) => !e.user_ids.includes(u));
          if (typeof s.subscriber_count === 'number') s.subscriber_count = s.subscribers.length;
        }
        break;
    }
  },

  default_streams(state, e) {
    if ('realm_default_streams' in state) state.realm_default_streams = e.default_streams;
  },

  channel_folder(state, e) {
    if (!state.channel_folders) return;
    if (e.op === 'add') state.channel_folders.push(e.channel_folder);
    else if (e.op === 'update') Object.assign(byKey(state.channel_folders, 'id', e.channel_folder_id) ?? {}, e.data);
    else if (e.op === 'reorder') {
      for (const f of state.channel_folders) f.order = e.order.indexOf(f.id);
    }
  },

  user_topic(state, e) {
    if (!state.user_topics) return;
    state.user_topics = state.user_topics.filter(
      (t: any) => !(t.stream_id === e.stream_id && t.topic_name.toLowerCase() === e.topic_name.toLowerCase()),
    );
    if (e.visibility_policy !== 0) {
      state.user_topics.push({ stream_id: e.stream_id, topic_name: e.topic_name, last_updated: e.last_updated, visibility_policy: e.visibility_policy });
    }
  },

  message(state, e) {
    if ('max_message_id' in state) state.max_message_id = Math.max(state.max_message_id, e.message.id);
    const m = e.message;
    // A channel's first message (the reference client does the same).
    if (m.type === 'stream') {
      for (const k of ['subscriptions', 'unsubscribed', 'never_subscribed', 'streams']) {
        const ch = byKey(state[k], 'stream_id', m.stream_id);
        if (ch && ch.first_message_id === null) ch.first_message_id = m.id;
      }
    }
    if (state.unread_msgs && !(e.flags ?? []).includes('read')) addUnread(state, m.id, unreadKind(state, m), isMention(e.flags ?? []));
    if (state.recent_private_conversations && m.type === 'private') {
      const others = sortedUnique(m.display_recipient.map((u: any) => u.id).filter((id: number) => id !== state.user_id));
      const key = others.join(',');
      const rest = state.recent_private_conversations.filter((c: any) => c.user_ids.join(',') !== key);
      state.recent_private_conversations = [{ max_message_id: m.id, user_ids: others }, ...rest];
    }
  },

  update_message_flags(state, e) {
    if (e.flag === 'starred' && state.starred_messages) {
      const ids = e.op === 'add' ? [...state.starred_messages, ...e.messages] : state.starred_messages.filter((id: number) => !e.messages.includes(id));
      state.starred_messages = sortedUnique(ids);
    }
    if (e.flag !== 'read' || !state.unread_msgs) return;
    if (e.op === 'add') {
      for (const id of e.messages) removeUnread(state, id);
    } else {
      for (const id of e.messages) {
        const d = e.message_details?.[id];
        if (!d) continue;
        const kind: UnreadKind =
          d.type === 'private'
            ? { kind: 'private', others: sortedUnique(d.user_ids), muted: false }
            : { kind: 'stream', channelId: d.stream_id, topic: d.topic, muted: !d.unmuted_stream_msg };
        addUnread(state, id, kind, d.mentioned === true);
      }
    }
  },

  delete_message(state, e) {
    const ids: number[] = e.message_ids ?? [e.message_id];
    if (state.unread_msgs) for (const id of ids) removeUnread(state, id);
    if (state.starred_messages) state.starred_messages = state.starred_messages.filter((id: number) => !ids.includes(id));
  },

  presence(state, e) {
    if (!state.presences) return;
    // The modern form (simplified_presence_events with slim_presence): the records replace the old ones.
    if (e.presences) Object.assign(state.presences, e.presences);
  },

  user_status(state, e) {
    if (!state.user_status) return;
    const current = { ...(state.user_status[e.user_id] ?? {}) };
    for (const k of ['away', 'status_text', 'emoji_name', 'emoji_code', 'reaction_type']) {
      if (e[k] !== undefined) current[k] = e[k];
    }
    for (const k of Object.keys(current)) if (current[k] === '' || current[k] === false) delete current[k];
    if (current.emoji_name === undefined) {
      delete current.emoji_code;
      delete current.reaction_type;
    }
    if (Object.keys(current).length) state.user_status[e.user_id] = current;
    else delete state.user_status[e.user_id];
  },

  user_settings(state, e) {
    if (e.op === 'update' && state.user_settings) state.user_settings[e.property] = e.value;
    // Turning draft synchronization off deletes the server's drafts (clients keep their local copies).
    if (e.property === 'enable_drafts_synchronization' && e.value === false && state.drafts) state.drafts = [];
  },

  realm_user_settings_defaults(state, e) {
    if (e.op === 'update' && state.realm_user_settings_defaults) state.realm_user_settings_defaults[e.property] = e.value;
  },

  realm_linkifiers(state, e) {
    if ('realm_linkifiers' in state) state.realm_linkifiers = e.realm_linkifiers;
  },

  realm_emoji(state, e) {
    if ('realm_emoji' in state) state.realm_emoji = e.realm_emoji;
  },

  alert_words(state, e) {
    if ('alert_words' in state) state.alert_words = e.alert_words;
  },

  drafts(state, e) {
    if (!state.drafts) return;
    if (e.op === 'add') state.drafts.push(...e.drafts);
    else if (e.op === 'update') state.drafts = state.drafts.map((d: any) => (d.id === e.draft.id ? e.draft : d));
    else if (e.op === 'remove') state.drafts = removeBy(state.drafts, 'id', [e.draft_id]);
  },

  saved_snippets(state, e) {
    if (!state.saved_snippets) return;
    if (e.op === 'add') state.saved_snippets.push(e.saved_snippet);
    else if (e.op === 'update') state.saved_snippets = state.saved_snippets.map((s: any) => (s.id === e.saved_snippet.id ? e.saved_snippet : s));
    else if (e.op === 'remove') state.saved_snippets = removeBy(state.saved_snippets, 'id', [e.saved_snippet_id]);
  },

  navigation_view(state, e) {
    if (!state.navigation_views) return;
    if (e.op === 'add') state.navigation_views.push(e.navigation_view);
    else if (e.op === 'update') Object.assign(byKey(state.navigation_views, 'fragment', e.fragment) ?? {}, e.data);
    else if (e.op === 'remove') state.navigation_views = removeBy(state.navigation_views, 'fragment', [e.fragment]);
  },

  scheduled_messages(state, e) {
    if (!state.scheduled_messages) return;
    if (e.op === 'add') state.scheduled_messages.push(...e.scheduled_messages);
    else if (e.op === 'update') state.scheduled_messages = state.scheduled_messages.map((m: any) => (m.scheduled_message_id === e.scheduled_message.scheduled_message_id ? e.scheduled_message : m));
    else if (e.op === 'remove') state.scheduled_messages = removeBy(state.scheduled_messages, 'scheduled_message_id', [e.scheduled_message_id]);
  },

  custom_profile_fields(state, e) {
    if ('custom_profile_fields' in state) state.custom_profile_fields = e.fields;
    // Values of deleted fields go from every user (the reference's apply_event).
    const ids = new Set(e.fields.map((f: any) => String(f.id)));
    for (const u of [...(state.realm_users ?? []), ...(state.realm_non_active_users ?? [])]) {
      for (const k of Object.keys(u.profile_data ?? {})) if (!ids.has(k)) delete u.profile_data[k];
    }
  },

  reminders(state, e) {
    if (!state.reminders) return;
    if (e.op === 'add') state.reminders.push(...e.reminders);
    else if (e.op === 'remove') state.reminders = removeBy(state.reminders, 'reminder_id', [e.reminder_id]);
  },

  muted_users(state, e) {
    if ('muted_users' in state) state.muted_users = e.muted_users;
  },

  realm_playgrounds(state, e) {
    if ('realm_playgrounds' in state) state.realm_playgrounds = e.realm_playgrounds;
  },

  realm(state, e) {
    if (e.op === 'update') state[`realm_${e.property}`] = e.value;
    else if (e.op === 'update_dict') for (const [k, v] of Object.entries(e.data)) state[`realm_${k}`] = v;
    // Derived fields, as the reference's apply_event keeps them.
    if (e.op === 'update' && e.property === 'message_edit_history_visibility_policy') state.realm_allow_edit_history = e.value !== 'none';
    if (e.op === 'update' && e.property === 'jitsi_server_url' && 'jitsi_server_url' in state) {
      state.jitsi_server_url = e.value ?? state.server_jitsi_server_url ?? '';
    }
    if (e.op === 'update_dict' && 'user_id' in state) {
      const has = (setting: string) => state[`realm_${setting}`] !== undefined && userHasGroupSetting(state, state.user_id, state[`realm_${setting}`]);
      for (const [field, setting] of Object.entries(OWN_PERMISSION_FIELDS)) {
        if (setting in e.data) state[field] = has(setting);
      }
      if ('can_create_public_channel_group' in e.data || 'can_create_private_channel_group' in e.data) {
        state.can_create_streams = has('can_create_public_channel_group') || has('can_create_private_channel_group');
      }
    }
  },

  realm_domains(state, e) {
    if (!state.realm_domains) return;
    if (e.op === 'add') state.realm_domains.push(e.realm_domain);
    else if (e.op === 'change') state.realm_domains = state.realm_domains.map((d: any) => (d.domain === e.realm_domain.domain ? e.realm_domain : d));
    else if (e.op === 'remove') state.realm_domains = removeBy(state.realm_domains, 'domain', [e.domain]);
  },
};

/** The user's own permission fields of register and the realm setting each follows. */
const OWN_PERMISSION_FIELDS: Record<string, string> = {
  can_create_public_streams: 'can_create_public_channel_group',
  can_create_private_streams: 'can_create_private_channel_group',
  can_create_web_public_streams: 'can_create_web_public_channel_group',
  can_subscribe_other_users: 'can_add_subscribers_group',
  can_invite_others_to_realm: 'can_invite_users_group',
};

/** Whether the user is in a group-setting value, by the groups the client knows (realm_user_groups). */
function userHasGroupSetting(state: State, userId: number, value: any): boolean {
  const groups = new Map<number, any>((state.realm_user_groups ?? []).map((g: any) => [g.id, g]));
  const inGroup = (id: number, seen: Set<number>): boolean => {
    const g = groups.get(id);
    if (!g || seen.has(id) || g.deactivated) return false;
    seen.add(id);
    return g.members.includes(userId) || g.direct_subgroup_ids.some((sub: number) => inGroup(sub, seen));
  };
  if (typeof value === 'number') return inGroup(value, new Set());
  return value.direct_members.includes(userId) || value.direct_subgroups.some((g: number) => inGroup(g, new Set()));
}

// The contract's name for the same events.
reducers.realm_user_groups = reducers.user_group!;

/** Applies events, in order, to a deep copy of a snapshot. Event types with no reducer are ignored. */
export function applyEvents(snapshot: State, events: Event[]): State {
  const state = structuredClone(snapshot);
  for (const e of events) reducers[e.type]?.(state, e);
  return state;
}

export const reducedEventTypes = Object.keys(reducers);
