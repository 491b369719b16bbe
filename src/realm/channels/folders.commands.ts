// Channel folders: creating, renaming, describing, archiving and reordering them (administrators only).
import type { RealmConfigEvent, RealmEvent } from '../../bus/events.js';
import { errors } from '../../errors.js';
import type { FolderChanges, ChannelFolder } from '../../model/channels.js';
import { byUser, type CommandDef } from '../commands.js';
import { activeUserIds, actor, requireAdmin } from '../access/roles.js';
import type { RealmState } from '../state.js';
import { formatFolder } from './format.js';
import { prerenderDescriptions, renderDescription, type RenderedDescriptions } from './render.js';
import { LIMITS } from '../../limits.js';

function checkFolderName(state: RealmState, raw: string, self?: ChannelFolder): string {
  const name = raw.trim();
  if (name === '') throw errors.channelFolderNameEmpty();
  if ([...name].length > LIMITS.max_channel_folder_name_length) {
    throw errors.invalidParam(`name is too long (limit: ${LIMITS.max_channel_folder_name_length} characters)`);
  }
  for (const f of state.channels.folders.values()) {
    if (f.id !== self?.id && f.name.toLowerCase() === name.toLowerCase()) throw errors.channelFolderNameInUse();
  }
  return name;
}

function folderEvent(state: RealmState, event: Extract<RealmConfigEvent, { kind: 'channel_folder' }>): RealmEvent[] {
  return [{ event, users: activeUserIds(state) }];
}

export interface CreateFolderInput {
  actorId: number;
  name: string;
  description: string;
  realmUrl: string;
  /** The description rendered on the worker pool (the command's prepare). */
  renderedDescriptions?: RenderedDescriptions;
}

const createChannelFolder: CommandDef<CreateFolderInput, Omit<ChannelFolder, 'id' | 'dateCreated' | 'isArchived'>, ChannelFolder> = {
  prepare: (state, input) => prerenderDescriptions(state, input, [input.description], input.realmUrl),
  orderKey: (input) => byUser(input.actorId),
  check(state, input) {
    requireAdmin(actor(state, input.actorId));
    const name = checkFolderName(state, input.name);
    const orders = [...state.channels.folders.values()].map((f) => f.order);
    return {
      realmId: state.realm.id,
      name,
      description: input.description,
      renderedDescription: renderDescription(input.description, input.renderedDescriptions),
      order: orders.length === 0 ? 0 : Math.max(...orders) + 1,
      creatorId: input.actorId,
    };
  },
  write: (t, plan) => t.channelFolders.insert(plan),
  apply: (state, f) => void state.channels.folders.set(f.id, f),
  events: (state, f) => folderEvent(state, { kind: 'channel_folder', op: 'add', folder: formatFolder(f) }),
};

export interface UpdateFolderInput {
  actorId: number;
  folderId: number;
  name?: string;
  description?: string;
  isArchived?: boolean;
  realmUrl: string;
  /** The new description rendered on the worker pool (the command's prepare). */
  renderedDescriptions?: RenderedDescriptions;
}

const updateChannelFolder: CommandDef<UpdateFolderInput, { id: number; changes: FolderChanges }, { folder: ChannelFolder; changes: FolderChanges }> = {
  prepare: (state, input) => prerenderDescriptions(state, input, [input.description], input.realmUrl),
  orderKey: (input) => byUser(input.actorId),
  check(state, input) {
    requireAdmin(actor(state, input.actorId));
    const folder = state.channels.folders.get(input.folderId);
    if (!folder) throw errors.invalidChannelFolderId();
    if (input.name === undefined && input.description === undefined && input.isArchived === undefined) throw errors.noNewValues();
    const changes: FolderChanges = {};
    if (input.name !== undefined) {
      const name = checkFolderName(state, input.name, folder);
      if (name !== folder.name) changes.name = name;
    }
    if (input.description !== undefined && input.description !== folder.description) {
      changes.description = input.description;
      changes.renderedDescription = renderDescription(input.description, input.renderedDescriptions);
    }
    if (input.isArchived !== undefined && input.isArchived !== folder.isArchived) {
      const inUse = [...state.channels.byId.values()].some((c) => c.folderId === folder.id && !c.isArchived);
      if (input.isArchived && inUse) throw errors.channelFolderNotEmpty();
      changes.isArchived = input.isArchived;
    }
    return { id: folder.id, changes };
  },
  async write(t, plan) {
    return { folder: await t.channelFolders.update(plan.id, plan.changes), changes: plan.changes };
  },
  apply: (state, r) => void state.channels.folders.set(r.folder.id, r.folder),
  events(state, r) {
    const data: Record<string, unknown> = {};
    if (r.changes.name !== undefined) data.name = r.changes.name;
    if (r.changes.description !== undefined) {
      data.description = r.changes.description;
      data.rendered_description = r.changes.renderedDescription;
    }
    if (r.changes.isArchived !== undefined) data.is_archived = r.changes.isArchived;
    if (Object.keys(data).length === 0) return [];
    return folderEvent(state, { kind: 'channel_folder', op: 'update', folderId: r.folder.id, data });
  },
};

const reorderChannelFolders: CommandDef<{ actorId: number; order: number[] }, number[], number[]> = {
  check(state, input) {
    requireAdmin(actor(state, input.actorId));
    const ids = new Set(input.order);
    const all = [...state.channels.folders.keys()];
    if (ids.size !== input.order.length || ids.size !== all.length || all.some((id) => !ids.has(id))) {
      throw errors.channelFolderOrderIncomplete();
    }
    return input.order;
  },
  async write(t, order) {
    await t.channelFolders.setOrder(order);
    return order;
  },
  apply(state, order) {
    order.forEach((id, i) => {
      const f = state.channels.folders.get(id);
      if (f) state.channels.folders.set(id, { ...f, order: i });
    });
  },
  events: (state, order) => folderEvent(state, { kind: 'channel_folder', op: 'reorder', order }),
};

export const folderCommands = {
  'channelFolders.create': createChannelFolder,
  'channelFolders.update': updateChannelFolder,
  'channelFolders.reorder': reorderChannelFolders,
};
