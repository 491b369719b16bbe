// Realm command run when an upload's thumbnails are done (or failed): the messages still showing its placeholder
// get the thumbnail (or lose the preview), each with a rendering-only update_message event, like the reference's
// thumbnail worker.
import type { RealmEvent } from '../../bus/events.js';
import { uploadPreview } from './thumbnail-formats.js';
import { rewriteUploadPreviews } from '../../markdown/index.js';
import type { StoredThumbnail } from '../../model/files.js';
import type { CommandDef } from '../commands.js';
import { changeAudience } from '../access/messages.js';
import { flagNames } from '../messages/format.js';

interface FinishInput {
  pathId: string;
  /** The full list after new thumbnails were made; null when the image could not be thumbnailed at all; absent
   *  when nothing new was made (the messages are still brought up to date). */
  thumbnails?: StoredThumbnail[] | null;
}

interface Rerendered {
  editTime: number;
  messages: { id: number; content: string; renderedContent: string; audience: { id: number; flags: string[] }[] }[];
}

const finishThumbnails: CommandDef<FinishInput, FinishInput & { realmId: number }, Rerendered> = {
  batchable: true,
  check: (state, input) => ({ ...input, realmId: state.realm.id }),
  async write(t, p, state) {
    const editTime = Math.floor(Date.now() / 1000);
    if (p.thumbnails === null) await t.imageAttachments.delete(p.pathId);
    else if (p.thumbnails) await t.imageAttachments.setThumbnails(p.pathId, p.thumbnails);
    const img = p.thumbnails === null ? null : await t.imageAttachments.byPathId(p.pathId);
    if (img !== null && (img.realmId !== p.realmId || img.thumbnails.length === 0)) return { editTime, messages: [] };
    const preview = img && uploadPreview(img);
    const changed: { id: number; channelId: number | null; content: string; renderedContent: string }[] = [];
    for (const m of await t.imageAttachments.placeholderMessages(p.realmId, p.pathId)) {
      const html = rewriteUploadPreviews(m.renderedContent, p.pathId, preview);
      if (html === null) continue;
      await t.imageAttachments.setRenderedContent(m.id, html);
      changed.push({ ...m, renderedContent: html });
    }
    const rows = await t.userMessages.rowsFor(changed.map((m) => m.id));
    const messages = changed.map((m) => {
      const flagsOf = new Map(rows.filter((r) => r.messageId === m.id).map((r) => [r.userId, r.flags]));
      const audience = changeAudience(state, flagsOf.keys(), m.channelId).map((id) => ({ id, flags: flagNames(flagsOf.get(id) ?? 0) }));
      return { id: m.id, content: m.content, renderedContent: m.renderedContent, audience };
    });
    return { editTime, messages };
  },
  events: (_state, r) =>
    r.messages.map((m): RealmEvent => ({
      event: { kind: 'update_message', editorId: null, editTime: r.editTime, messageId: m.id, messageIds: [m.id], renderingOnly: true, content: { content: m.content, rendered: m.renderedContent } },
      users: m.audience.map((a) => ({ id: a.id, flags: a.flags })),
    })),
};

export const thumbnailCommands = { 'thumbnails.finish': finishThumbnails };
