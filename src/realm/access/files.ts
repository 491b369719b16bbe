// Who may download an upload: the uploader, or anyone who can read a message linking it.
import type { Repos } from '../../persistence/db.js';
import type { Attachment } from '../../model/files.js';
import { canSeeMessage } from './messages.js';
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
