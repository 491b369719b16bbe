// New channels: the settings a creator may ask for (POST /channels/create, and POST subscriptions for
// channels that do not exist yet), checked against the creator's permissions.
import { errors } from '../../errors.js';
import type { Tx } from '../../persistence/db.js';
import { type NewChannel, CHANNEL_GROUP_SETTING_NAMES, type Channel, type ChannelGroupSettingName, type TopicsPolicy } from '../../model/channels.js';
import { isAdmin } from '../access/roles.js';
import { webPublicAllowed } from '../access/channels.js';
import type { RealmState } from '../state.js';
import { ROLE, type GroupSettingValue, type User } from '../../model/realm.js';
import { checkChannelGroupSetting, defaultChannelGroupSettings } from './group-settings.js';
import { renderDescription, type RenderedDescriptions } from './render.js';
import { checkChannelName, checkDescription, parseRetention } from './validate.js';

/** Settings for new channels, as the request gave them (undefined: not given). */
export interface NewChannelSettings {
  inviteOnly: boolean;
  isWebPublic: boolean;
  isDefault: boolean;
  historyPublicToSubscribers?: boolean;
  messageRetentionDays?: number | string;
  topicsPolicy?: TopicsPolicy;
  folderId?: number | null;
  groupSettings: Partial<Record<ChannelGroupSettingName, GroupSettingValue>>;
}

/** What the server knows that the working set does not. */
export interface ServerContext {
  realmUrl: string;
  /** WEB_PUBLIC_STREAMS_ENABLED. */
  webPublicStreamsEnabled: boolean;
}

/** The privacy rules shared by creation and PATCH: returns history_public_to_subscribers to store. */
export function checkPrivacy(
  state: RealmState,
  creator: User,
  server: ServerContext,
  p: { inviteOnly: boolean; isWebPublic: boolean; history: boolean | undefined },
): boolean {
  if (p.isWebPublic) {
    if (!webPublicAllowed(state, server.webPublicStreamsEnabled)) throw errors.webPublicChannelsDisabled();
    if (!state.userHasRealmPermission(creator.id, 'can_create_web_public_channel_group')) throw errors.insufficientPermission();
    if (p.inviteOnly) throw errors.webPublicChannelPrivate();
  }
  const setting = p.inviteOnly ? 'can_create_private_channel_group' : 'can_create_public_channel_group';
  if (!state.userHasRealmPermission(creator.id, setting)) throw errors.insufficientPermission();
  return p.inviteOnly ? (p.history ?? false) : true;
}

export function checkTopicsPolicyPermission(state: RealmState, user: User): void {
  if (!state.userHasRealmPermission(user.id, 'can_set_topics_policy_group')) throw errors.insufficientPermission();
}

export function checkFolder(state: RealmState, folderId: number): void {
  if (!state.channels.folders.has(folderId)) throw errors.invalidChannelFolderId();
}

/** Plans the rows of new channels; names must be new (the caller decided which ones are). */
export function planNewChannels(
  state: RealmState,
  creator: User,
  specs: { name: string; description: string }[],
  s: NewChannelSettings,
  server: ServerContext,
  rendered: RenderedDescriptions | undefined,
): NewChannel[] {
  if (specs.length === 0) return [];
  if (creator.role === ROLE.GUEST) throw errors.insufficientPermission();
  const history = checkPrivacy(state, creator, server, { inviteOnly: s.inviteOnly, isWebPublic: s.isWebPublic, history: s.historyPublicToSubscribers });
  if (s.isDefault) {
    if (!isAdmin(creator)) throw errors.mustBeAdmin();
    if (s.inviteOnly) throw errors.privateChannelNotDefault();
  }
  let retention: number | null = null;
  if (s.messageRetentionDays !== undefined) {
    if (creator.role !== ROLE.OWNER) throw errors.mustBeOwner();
    retention = parseRetention(s.messageRetentionDays);
  }
  if (s.topicsPolicy !== undefined && s.topicsPolicy !== 'inherit') checkTopicsPolicyPermission(state, creator);
  if (s.folderId !== undefined && s.folderId !== null) checkFolder(state, s.folderId);
  const groupSettings = defaultChannelGroupSettings(state, creator.id);
  for (const name of CHANNEL_GROUP_SETTING_NAMES) {
    const v = s.groupSettings[name];
    if (v !== undefined) groupSettings[name] = checkChannelGroupSetting(state, name, v);
  }
  const names = new Set<string>();
  return specs.map((spec) => {
    const name = checkChannelName(spec.name);
    if (names.has(name.toLowerCase()) || state.channels.channelByName(name)) throw errors.channelExists(name);
    names.add(name.toLowerCase());
    const description = checkDescription(spec.description);
    return {
      realmId: state.realm.id,
      name,
      description,
      renderedDescription: renderDescription(description, rendered),
      inviteOnly: s.inviteOnly,
      isWebPublic: s.isWebPublic,
      historyPublicToSubscribers: history,
      isArchived: false,
      messageRetentionDays: retention,
      topicsPolicy: s.topicsPolicy ?? 'inherit',
      folderId: s.folderId ?? null,
      creatorId: creator.id,
      groupSettings,
    };
  });
}

/** Inserts the new channels (and their default-channel rows); returns them in the same order. */
export async function writeNewChannels(t: Tx, rows: NewChannel[], isDefault: boolean): Promise<Channel[]> {
  const out: Channel[] = [];
  for (const row of rows) {
    const ch = await t.channels.insert(row);
    if (isDefault) await t.channels.addDefault(ch.realmId, ch.id);
    out.push(ch);
  }
  return out;
}

export function applyNewChannels(state: RealmState, channels: Channel[], isDefault: boolean): void {
  for (const ch of channels) {
    state.channels.putChannel(ch);
    if (isDefault) state.channels.defaultChannelIds.add(ch.id);
  }
}
