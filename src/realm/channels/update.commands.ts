// Changing a channel (PATCH /streams/{id}) and archiving it (DELETE /streams/{id}): name, description,
// privacy, default status, retention, folder, topics policy, permission groups, archived flag.
import type { RealmEvent } from '../../bus/events.js';
import { errors } from '../../errors.js';
import { byUser, type CommandDef } from '../commands.js';
import { actor, isAdmin } from '../access/roles.js';
import type { RealmState } from '../state.js';
import { ROLE, type GroupSettingValue, type User } from '../../model/realm.js';
import { canAdminister, hasContentAccess, metadataAudience, visibleChannel, webPublicAllowed } from '../access/channels.js';
import { checkFolder, checkTopicsPolicyPermission, type ServerContext } from './creating.js';
import { archiveEvents, defaultStreamsEvent, streamCreate, streamDelete, streamUpdate } from './events.js';
import { activeSubscriberIds, streamPostPolicy } from './format.js';
import { CHANNEL_GROUP_SETTINGS, checkChannelGroupSetting, groupSettingEquals } from './group-settings.js';
import { prerenderDescriptions, renderDescription, type RenderedDescriptions } from './render.js';
import { CHANNEL_GROUP_SETTING_NAMES, type Channel, type ChannelGroupSettingName, type TopicsPolicy, type ChannelChanges } from '../../model/channels.js';
import { checkChannelName, checkDescription, checkNameAvailable, parseRetention } from './validate.js';

export interface UpdateChannelInput {
  actorId: number;
  channelId: number;
  newName?: string;
  description?: string;
  isPrivate?: boolean;
  isWebPublic?: boolean;
  historyPublicToSubscribers?: boolean;
  isDefault?: boolean;
  messageRetentionDays?: number | string;
  isArchived?: boolean;
  /** null: out of its folder. */
  folderId?: number | null;
  topicsPolicy?: TopicsPolicy;
  groupSettings?: Partial<Record<ChannelGroupSettingName, { new: GroupSettingValue; old?: GroupSettingValue }>>;
  server: ServerContext;
  /** The new description rendered on the worker pool (the command's prepare). */
  renderedDescriptions?: RenderedDescriptions;
}

/** The channel as a description may link it, renamed by the same request (an invalid name: the check refuses it). */
function renamedChannel(state: RealmState, input: UpdateChannelInput): { id: number; name: string } | undefined {
  const ch = state.channels.byId.get(input.channelId);
  if (!ch) return undefined;
  try {
    return { id: ch.id, name: input.newName === undefined ? ch.name : checkChannelName(input.newName) };
  } catch {
    return { id: ch.id, name: ch.name };
  }
}

interface Plan {
  before: Channel;
  changes: ChannelChanges;
  isDefault: boolean | undefined;
  audienceBefore: number[];
}

type Result = Plan & { after: Channel };

function checkPrivacyChange(state: RealmState, user: User, ch: Channel, input: UpdateChannelInput, changes: ChannelChanges): void {
  if (input.isPrivate === undefined && input.isWebPublic === undefined && input.historyPublicToSubscribers === undefined) return;
  // Even organization administrators need content access to change who can read a channel.
  if (!hasContentAccess(state, user, ch)) throw errors.invalidChannelId();
  const isWebPublic = input.isWebPublic ?? (input.isPrivate === true ? false : ch.isWebPublic);
  const inviteOnly = input.isPrivate ?? (input.isWebPublic === true ? false : ch.inviteOnly);
  if (isWebPublic && inviteOnly) throw errors.webPublicChannelPrivate();
  // As in the reference, a public channel's history is public to subscribers whatever the request says.
  const history = inviteOnly ? (input.historyPublicToSubscribers ?? (ch.inviteOnly ? ch.historyPublicToSubscribers : true)) : true;
  if (isWebPublic && !ch.isWebPublic) {
    if (!webPublicAllowed(state, input.server.webPublicStreamsEnabled)) throw errors.webPublicChannelsDisabled();
    if (!state.userHasRealmPermission(user.id, 'can_create_web_public_channel_group')) throw errors.insufficientPermission();
  }
  if (inviteOnly !== ch.inviteOnly) {
    const setting = inviteOnly ? 'can_create_private_channel_group' : 'can_create_public_channel_group';
    if (!state.userHasRealmPermission(user.id, setting)) throw errors.insufficientPermission();
  }
  if (inviteOnly && state.channels.defaultChannelIds.has(ch.id) && input.isDefault !== false) throw errors.privateChannelNotDefault();
  if (inviteOnly !== ch.inviteOnly) changes.inviteOnly = inviteOnly;
  if (isWebPublic !== ch.isWebPublic) changes.isWebPublic = isWebPublic;
  if (history !== ch.historyPublicToSubscribers) changes.historyPublicToSubscribers = history;
}

function checkGroupSettings(state: RealmState, user: User, ch: Channel, input: UpdateChannelInput, changes: ChannelChanges): void {
  const requested = input.groupSettings ?? {};
  let settings = ch.groupSettings;
  for (const name of CHANNEL_GROUP_SETTING_NAMES) {
    const change = requested[name];
    if (!change) continue;
    if (CHANNEL_GROUP_SETTINGS[name].access === 'content' && !hasContentAccess(state, user, ch)) throw errors.invalidChannelId();
    if (change.old !== undefined && !groupSettingEquals(checkChannelGroupSetting(state, name, change.old), ch.groupSettings[name])) {
      throw errors.groupSettingOldMismatch();
    }
    const value = checkChannelGroupSetting(state, name, change.new);
    if (!groupSettingEquals(value, ch.groupSettings[name])) settings = { ...settings, [name]: value };
  }
  if (settings !== ch.groupSettings) changes.groupSettings = settings;
}

const updateChannel: CommandDef<UpdateChannelInput, Plan, Result> = {
  prepare: (state, input) => prerenderDescriptions(state, input, [input.description], input.server.realmUrl, renamedChannel(state, input)),
  orderKey: (input) => byUser(input.actorId),
  check(state, input) {
    const user = actor(state, input.actorId);
    const ch = visibleChannel(state, user, input.channelId, 'metadata');
    const given = Object.entries(input).filter(([k, v]) => !['actorId', 'channelId', 'server', 'renderedDescriptions'].includes(k) && v !== undefined);
    if (given.length === 0 || (input.groupSettings && given.length === 1 && Object.keys(input.groupSettings).length === 0)) {
      throw errors.noNewValues();
    }
    if (!canAdminister(state, user, ch)) throw errors.cannotAdministerChannel();
    if (input.isArchived === true && ch.isArchived) throw errors.channelAlreadyArchived();
    if (ch.isArchived && given.some(([k]) => k !== 'isArchived')) throw errors.channelArchived();
    const changes: ChannelChanges = {};
    if (input.newName !== undefined) {
      const name = checkChannelName(input.newName);
      checkNameAvailable(state, name, ch);
      if (name !== ch.name) changes.name = name;
    }
    if (input.description !== undefined) {
      const description = checkDescription(input.description);
      if (description !== ch.description) {
        changes.description = description;
        changes.renderedDescription = renderDescription(description, input.renderedDescriptions);
      }
    }
    checkPrivacyChange(state, user, ch, input, changes);
    let isDefault = input.isDefault;
    if (isDefault !== undefined) {
      if (!isAdmin(user)) throw errors.mustBeAdmin();
      if (isDefault && (changes.inviteOnly ?? ch.inviteOnly)) throw errors.privateChannelNotDefault();
      if (isDefault === state.channels.defaultChannelIds.has(ch.id)) isDefault = undefined;
    }
    if (input.messageRetentionDays !== undefined) {
      if (user.role !== ROLE.OWNER) throw errors.mustBeOwner();
      const days = parseRetention(input.messageRetentionDays);
      if (days !== ch.messageRetentionDays) changes.messageRetentionDays = days;
    }
    if (input.folderId !== undefined) {
      if (input.folderId !== null) checkFolder(state, input.folderId);
      if (input.folderId !== ch.folderId) changes.folderId = input.folderId;
    }
    if (input.topicsPolicy !== undefined) {
      checkTopicsPolicyPermission(state, user);
      if (input.topicsPolicy !== ch.topicsPolicy) changes.topicsPolicy = input.topicsPolicy;
    }
    checkGroupSettings(state, user, ch, input, changes);
    if (input.isArchived !== undefined && input.isArchived !== ch.isArchived) {
      changes.isArchived = input.isArchived;
      if (input.isArchived && state.channels.defaultChannelIds.has(ch.id)) isDefault = false;
    }
    return { before: ch, changes, isDefault, audienceBefore: metadataAudience(state, ch) };
  },
  async write(t, plan) {
    const ch = plan.before;
    if (plan.changes.topicsPolicy === 'empty_topic_only' && (await t.channels.hasMessagesOutsideEmptyTopic(ch.id))) {
      throw errors.emptyTopicOnlyNeedsEmptyTopic();
    }
    await t.channels.update(ch.id, plan.changes);
    if (plan.isDefault === true) await t.channels.addDefault(ch.realmId, ch.id);
    if (plan.isDefault === false) await t.channels.removeDefault(ch.realmId, ch.id);
    return { ...plan, after: { ...ch, ...plan.changes } };
  },
  apply(state, r) {
    state.channels.putChannel(r.after);
    if (r.isDefault === true) state.channels.defaultChannelIds.add(r.after.id);
    if (r.isDefault === false) state.channels.defaultChannelIds.delete(r.after.id);
  },
  events(state, r) {
    const ch = state.channels.byId.get(r.after.id)!;
    const c = r.changes;
    const events: RealmEvent[] = [];
    // Who gained or lost sight of the channel (privacy or permission groups changed).
    const before = new Set(r.audienceBefore);
    const after = metadataAudience(state, ch);
    const gained = after.filter((id) => !before.has(id));
    const lost = r.audienceBefore.filter((id) => !after.includes(id));
    events.push(...streamDelete([ch.id], lost));
    if (gained.length > 0) {
      events.push(...streamCreate(state, [ch], gained));
      const subscribers = activeSubscriberIds(state, ch.id);
      if (subscribers.length > 0) events.push({ event: { kind: 'subscription', op: 'peer_add', channelIds: [ch.id], userIds: subscribers }, users: gained });
    }
    const audience = after.filter((id) => before.has(id));
    const update = (property: string, value: unknown, extra: Record<string, unknown> = {}) => {
      if (audience.length > 0) events.push(streamUpdate(state, ch, property, value, extra, audience));
    };
    if (c.name !== undefined) events.push(streamUpdate(state, { ...ch, name: r.before.name }, 'name', c.name, {}, audience));
    if (c.description !== undefined) update('description', c.description, { rendered_description: c.renderedDescription });
    if (c.inviteOnly !== undefined) {
      update('invite_only', c.inviteOnly, { history_public_to_subscribers: ch.historyPublicToSubscribers, is_web_public: ch.isWebPublic });
    }
    if (c.historyPublicToSubscribers !== undefined) update('history_public_to_subscribers', c.historyPublicToSubscribers);
    if (c.isWebPublic !== undefined) update('is_web_public', c.isWebPublic);
    if ('messageRetentionDays' in c) update('message_retention_days', c.messageRetentionDays);
    if ('folderId' in c) update('folder_id', c.folderId);
    if (c.topicsPolicy !== undefined) update('topics_policy', c.topicsPolicy);
    if (c.groupSettings) {
      for (const name of CHANNEL_GROUP_SETTING_NAMES) {
        if (groupSettingEquals(c.groupSettings[name], r.before.groupSettings[name])) continue;
        update(name, c.groupSettings[name]);
        if (name !== 'can_send_message_group') continue;
        const policy = streamPostPolicy(state, ch);
        if (policy !== streamPostPolicy(state, r.before)) {
          update('stream_post_policy', policy);
          update('is_announcement_only', policy === 2);
        }
      }
    }
    if (r.isDefault !== undefined) events.push(...defaultStreamsEvent(state));
    if (c.isArchived !== undefined) events.push(...archiveEvents(state, ch, c.isArchived));
    return events.filter((e) => e.users.length > 0);
  },
};

export const updateCommands = { 'channels.update': updateChannel };
