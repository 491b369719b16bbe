// Custom emoji: list them, add one (an image streamed to storage), deactivate one, and serve their images.
import { imageReply } from '../../files/download.js';
import { receiveSingleFile } from '../../files/multipart.js';
import { emojiKey } from '../../files/service.js';
import { checkCanAddEmoji } from '../../realm/files/emoji.commands.js';
import { MAX_EMOJI_FILE_MIB, normalizeEmojiName, realmEmojiDict } from '../../realm/files/emoji.js';
import { MULTIPART_OVERHEAD } from '../body.js';
import { endpoint, RawReply } from '../endpoint.js';
import { errors } from '../../errors.js';
import { required, str } from '../../params.js';

/** The image formats custom emoji may have, by their first bytes. */
function imageExtension(head: Buffer): string | null {
  if (head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (head.subarray(0, 4).toString('latin1') === 'GIF8') return 'gif';
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'jpg';
  if (head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP') return 'webp';
  return null;
}

export const getRealmEmoji = endpoint({
  method: 'GET',
  path: '/realm/emoji',
  auth: 'user',
  params: {},
  handle: (ctx) => ({ emoji: realmEmojiDict(ctx.realm.state) }),
});

export const addRealmEmoji = endpoint({
  method: 'POST',
  path: '/realm/emoji/{emoji_name}',
  auth: 'user',
  body: 'stream',
  params: { emoji_name: required(str()) },
  async handle(ctx, p) {
    const name = normalizeEmojiName(p.emoji_name);
    const realmId = ctx.realm.state.realm.id;
    // Refused before any byte is stored; the command checks again against the state it runs on.
    checkCanAddEmoji(ctx.realm.state, ctx.user, name);
    const { files } = ctx.services;
    const limitBytes = MAX_EMOJI_FILE_MIB * 1024 * 1024;
    const tooLarge = () => errors.fileTooLarge(MAX_EMOJI_FILE_MIB);
    ctx.request.body.limit(limitBytes + MULTIPART_OVERHEAD, tooLarge);
    const { result: fileName } = await receiveSingleFile(ctx.request.body, {
      contentType: ctx.request.headers['content-type'] ?? '',
      limitBytes,
      tooLarge,
      async store(file) {
        let head = Buffer.alloc(0);
        const tapped = (async function* () {
          for await (const c of file.chunks) {
            if (head.length < 12) head = Buffer.concat([head, c.subarray(0, 12 - head.length)]);
            yield c;
          }
        })();
        const temp = files.newEmojiFileName('upload');
        await files.storage.put(emojiKey(realmId, temp), tapped);
        const ext = imageExtension(head);
        if (!ext) {
          await files.storage.delete(emojiKey(realmId, temp));
          throw errors.badRequest('Invalid image format');
        }
        const fileName = temp.replace(/\.upload$/, `.${ext}`);
        await files.storage.move(emojiKey(realmId, temp), emojiKey(realmId, fileName));
        return fileName;
      },
      discard: (fileName) => files.storage.delete(emojiKey(realmId, fileName)),
    });
    try {
      await ctx.realm.dispatch('emoji.add', { actorId: ctx.user.id, name, fileName });
    } catch (err) {
      await files.storage.delete(emojiKey(realmId, fileName)).catch(() => undefined);
      throw err;
    }
    return {};
  },
});

export const deactivateRealmEmoji = endpoint({
  method: 'DELETE',
  path: '/realm/emoji/{emoji_name}',
  auth: 'user',
  params: { emoji_name: required(str()) },
  async handle(ctx, p) {
    await ctx.realm.dispatch('emoji.deactivate', { actorId: ctx.user.id, name: normalizeEmojiName(p.emoji_name) });
    return {};
  },
});

export const emojiImage = endpoint({
  method: 'GET',
  path: '/user_avatars/{realm_id}/emoji/images/{file_name}',
  root: true,
  auth: 'none',
  params: { realm_id: required(str()), file_name: required(str()) },
  async handle(ctx, p) {
    const state = ctx.realm.state;
    const known = String(state.realm.id) === p.realm_id && [...state.files.emoji.values()].some((e) => e.fileName === p.file_name);
    const reply = known ? await imageReply(ctx.services.files.storage, emojiKey(state.realm.id, p.file_name), p.file_name, ctx.request.headers.range) : null;
    if (!reply) throw errors.notFound('File not found');
    return new RawReply(reply);
  },
});

export const realmEmojiEndpoints = [getRealmEmoji, addRealmEmoji, deactivateRealmEmoji, emojiImage];
