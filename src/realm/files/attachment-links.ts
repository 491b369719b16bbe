// Which messages link which uploads: the bookkeeping by which reading a message grants downloading its files.
import { uploadPathIds } from './links.js';
import type { Tx } from '../../persistence/db.js';
import { canDownload } from '../access/files.js';
import type { RealmState } from '../state.js';

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
