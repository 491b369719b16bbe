// Who may download an upload, and the bookkeeping that grants it: which messages link which attachments.
import { uploadPathIds } from '../../files/links.js';
import type { Repos, Tx } from '../../persistence/db.js';
import type { Attachment } from '../../model/files.js';
import { canSeeMessage } from '../messages/access.js';
import type { RealmState } from '../state.js';
import type { User } from '../../model/realm.js';

/** The uploader, or anyone who can read a message linking the file: they received it, or it is in a channel
 *  whose history they can read. Never users of another realm. */
export async function canDownload(db: Repos, state: RealmState, user: User, a: Attachment): Promise<boolean> {
  if (a.realmId !== state.realm.id || !user.isActive) return false;
  if (a.ownerId === user.id) return true;
  const links = await db.attachments.linkingMessages(a.id, user.id);
  // Exactly the rule by which the user may read the linking message.
  return links.some((m) => canSeeMessage(state, user, { kind: m.channelId === null ? 'direct' : 'stream', channelId: m.channelId }, m.received));
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
