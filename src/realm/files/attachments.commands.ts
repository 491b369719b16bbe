// Realm commands for attachment rows: record an upload (its bytes already stored), delete one, remove unclaimed ones.
import type { RealmEvent } from '../../bus/events.js';
import { errors } from '../../errors.js';
import type { Tx } from '../../persistence/db.js';
import type { Attachment, DeletedAttachment } from '../../model/files.js';
import type { CommandDef } from '../commands.js';
import { actor } from '../access/roles.js';

/** The API's attachment object. */
export function attachmentRecord(a: Attachment, messages: { id: number; date_sent: number }[] = []): Record<string, unknown> {
  return { id: a.id, name: a.name, path_id: a.pathId, size: a.size, create_time: a.createTime, messages };
}

interface AddInput {
  actorId: number;
  pathId: string;
  name: string;
  contentType: string;
  size: number;
}

interface Added {
  attachment: Attachment;
  spaceUsed: number;
}

const addAttachment: CommandDef<AddInput, AddInput & { realmId: number }, Added> = {
  batchable: true,
  check(state, input) {
    actor(state, input.actorId);
    return { ...input, realmId: state.realm.id };
  },
  async write(t, p) {
    const attachment = await t.attachments.add({ ...p, ownerId: p.actorId });
    return { attachment, spaceUsed: await t.attachments.spaceUsed(p.realmId) };
  },
  events: (_state, { attachment, spaceUsed }) => [
    { event: { kind: 'attachment', op: 'add', attachment: attachmentRecord(attachment), spaceUsed }, users: [attachment.ownerId] },
  ],
};

/** What the caller does after the commit: remove these files from storage. */
export interface Removed {
  deleted: DeletedAttachment[];
  spaceUsed: number;
}

function removedEvents({ deleted, spaceUsed }: Removed): RealmEvent[] {
  return deleted.map((d) => ({
    event: { kind: 'attachment', op: 'remove', attachmentId: d.id, spaceUsed },
    users: [d.ownerId],
  }));
}

async function removed(t: Tx, realmId: number, deleted: DeletedAttachment[]): Promise<Removed> {
  return { deleted, spaceUsed: await t.attachments.spaceUsed(realmId) };
}

const deleteAttachment: CommandDef<{ actorId: number; id: number }, { actorId: number; id: number; realmId: number }, Removed> = {
  batchable: true,
  check(state, input) {
    actor(state, input.actorId);
    return { ...input, realmId: state.realm.id };
  },
  async write(t, p) {
    const deleted = await t.attachments.deleteOwned([p.id], p.actorId);
    if (deleted.length === 0) throw errors.invalidAttachment();
    return removed(t, p.realmId, deleted);
  },
  events: (_state, r) => removedEvents(r),
};

/** Removes up to `limit` attachments uploaded before `before` (ms) that no message links. */
const deleteUnclaimed: CommandDef<{ before: number; limit: number }, { before: number; limit: number; realmId: number }, Removed> = {
  batchable: true,
  check: (state, input) => ({ ...input, realmId: state.realm.id }),
  async write(t, p) {
    return removed(t, p.realmId, await t.attachments.deleteUnclaimed(p.realmId, new Date(p.before), p.limit));
  },
  events: (_state, r) => removedEvents(r),
};

export const attachmentCommands = {
  'attachments.add': addAttachment,
  'attachments.delete': deleteAttachment,
  'attachments.deleteUnclaimed': deleteUnclaimed,
};
