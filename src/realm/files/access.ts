// Who may download an upload, and the bookkeeping that grants it: which messages link which attachments.
import { uploadPathIds } from '../../files/links.js';
import type { Repos, Tx } from '../../persistence/db.js';
import type { Attachment } from '../../persistence/repos/attachments.js';
import { hasContentAccess } from '../channels/access.js';
import type { RealmState } from '../state.js';
import type { User } from '../types.js';

/** Whether the user may read the channel's history as a whole (not only messages they received). */
function readsChannelHistory(state: RealmState, user: User, channelId: number): boolean {
  const ch = state.channels.byId.get(channelId);
  return ch !== undefined && ch.historyPublicToSubscribers && hasContentAccess(state, user, ch);
}

/** The uploader, or anyone who can read a message linking the file: they received it, or it is in a channel
 *  whose history they can read. Never users of another realm. */
export async function canDownload(db: Repos, state: RealmState, user: User, a: Attachment): Promise<boolean> {
  if (a.realmId !== state.realm.id || !user.isActive) return false;
  if (a.ownerId === user.id) return true;
  const links = await db.attachments.linkingMessages(a.id, user.id);
  return links.some((m) => m.received || (m.channelId !== null && readsChannelHistory(state, user, m.channelId)));
}

/**
 * Records which uploads a message links, inside the message's transaction (send, and edit with `edit: true` to
 * replace the earlier links). Only files the sender may download are linked, so a link never grants more than
 * its sender had. Returns the linked attachment IDs (for has_attachment).
 */
export async function linkAttachments(
  t: Tx,
  state: RealmState,
  messageId: number,
  content: string,
  senderId: number,
  opts: { edit?: boolean } = {},
): Promise<number[]> {
  const pathIds = uploadPathIds(content);
  if (pathIds.length === 0 && !opts.edit) return [];
  const sender = state.usersById.get(senderId);
  const ids: number[] = [];
  if (sender) {
    for (const a of await t.attachments.byPathIds(state.realm.id, pathIds)) {
      if (await canDownload(t, state, sender, a)) ids.push(a.id);
    }
  }
  await t.attachments.setMessageLinks(messageId, ids);
  return ids;
}
