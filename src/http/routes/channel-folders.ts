// Channel folders: POST /channel_folders/create, GET and PATCH (order) /channel_folders, PATCH /channel_folders/{id}.
import type { CreateFolderInput, UpdateFolderInput } from '../../realm/channels/folders.commands.js';
import { formatFolder } from '../../realm/channels/format.js';
import { LIMITS, REQUEST_LIMITS } from '../../limits.js';
import { endpoint } from '../endpoint.js';
import { bool, int, list, optional, required, str, withDefault } from '../../params.js';
import { requestRealmUrl, viewer } from '../context.js';

const nameParam = str({ maxLength: LIMITS.max_channel_folder_name_length });
const descriptionParam = str({ maxLength: LIMITS.max_channel_folder_description_length });

export const createChannelFolder = endpoint({
  method: 'POST',
  path: '/channel_folders/create',
  auth: 'user',
  params: { name: required(nameParam), description: withDefault(descriptionParam, '') },
  async handle(ctx, p) {
    const input: CreateFolderInput = { actorId: ctx.user.id, name: p.name, description: p.description, realmUrl: requestRealmUrl(ctx) };
    const folder = await ctx.realm.dispatch('channelFolders.create', input);
    return { channel_folder_id: folder.id };
  },
});

export const getChannelFolders = endpoint({
  method: 'GET',
  path: '/channel_folders',
  auth: 'optional',
  params: { include_archived: withDefault(bool(), false) },
  handle(ctx, p) {
    const user = viewer(ctx);
    const state = ctx.realm.state;
    // Spectators see only folders holding a web-public channel.
    const webPublicFolders =
      user === null
        ? new Set([...state.channels.byId.values()].filter((c) => c.isWebPublic && !c.isArchived).map((c) => c.folderId))
        : null;
    const folders = state.channels
      .orderedFolders()
      .filter((f) => (p.include_archived || !f.isArchived) && (webPublicFolders === null || webPublicFolders.has(f.id)));
    return { channel_folders: folders.map(formatFolder) };
  },
});

export const updateChannelFolder = endpoint({
  method: 'PATCH',
  path: '/channel_folders/{channel_folder_id}',
  auth: 'user',
  params: {
    channel_folder_id: required(int()),
    name: optional(nameParam),
    description: optional(descriptionParam),
    is_archived: optional(bool()),
  },
  async handle(ctx, p) {
    const input: UpdateFolderInput = {
      actorId: ctx.user.id,
      folderId: p.channel_folder_id,
      name: p.name,
      description: p.description,
      isArchived: p.is_archived,
      realmUrl: requestRealmUrl(ctx),
    };
    await ctx.realm.dispatch('channelFolders.update', input);
    return {};
  },
});

export const reorderChannelFolders = endpoint({
  method: 'PATCH',
  path: '/channel_folders',
  auth: 'user',
  params: { order: required(list(int(), { maxItems: REQUEST_LIMITS.reorderIds })) },
  async handle(ctx, p) {
    await ctx.realm.dispatch('channelFolders.reorder', { actorId: ctx.user.id, order: p.order });
    return {};
  },
});

export const channelFolderEndpoints = [createChannelFolder, getChannelFolders, updateChannelFolder, reorderChannelFolders];
