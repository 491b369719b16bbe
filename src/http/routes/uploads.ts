// Uploaded files: upload one (streamed to storage), download one (access checked every time), list and delete yours.
import { fileReply } from '../file-reply.js';
import { MULTIPART_OVERHEAD, receiveSingleFile } from '../../files/multipart.js';
import { isPathId } from '../../realm/files/names.js';
import { attachmentKey } from '../../files/service.js';
import { attachmentRecord } from '../../realm/files/attachments.commands.js';
import { canDownload } from '../../realm/access/files.js';
import { endpoint, RawReply, type RequestContext } from '../endpoint.js';
import { errors } from '../../errors.js';
import { int, required, str } from '../../params.js';

export const uploadFile = endpoint({
  method: 'POST',
  path: '/user_uploads',
  auth: 'user',
  body: 'stream',
  params: {},
  response: { url: { type: 'string' }, uri: { type: 'string' }, filename: { type: 'string' } },
  async handle(ctx) {
    const files = ctx.services.files;
    const realmId = ctx.realm.state.realm.id;
    ctx.request.body.limit(files.maxUploadBytes + MULTIPART_OVERHEAD, files.tooLarge);
    const { result, filename, mimeType } = await receiveSingleFile(ctx.request.body, {
      contentType: ctx.request.headers['content-type'] ?? '',
      limitBytes: files.maxUploadBytes,
      tooLarge: files.tooLarge,
      async store(file) {
        const upload = files.newUpload(realmId, file.filename);
        return { ...upload, size: await files.storage.put(upload.key, file.chunks) };
      },
      discard: (upload) => files.storage.delete(upload.key),
    });
    return { ...(await files.record(ctx.realm, ctx.user.id, result.pathId, filename, mimeType, result.size)) };
  },
});

const PATH_PARAMS = { realm_id: required(str()), bucket: required(str()), random: required(str()), name: required(str()) };

/** The upload named by the path's four parts, when the user may download it; "File not found" otherwise. */
async function downloadable(ctx: RequestContext<'user'>, p: { realm_id: string; bucket: string; random: string; name: string }) {
  const pathId = `${p.realm_id}/${p.bucket}/${p.random}/${p.name}`;
  const { db } = ctx.services;
  const state = ctx.realm.state;
  const attachment = isPathId(pathId) ? await db.attachments.byPathId(state.realm.id, pathId) : null;
  // Someone who may not see a file learns nothing about it, not even that it exists.
  if (!attachment || !(await canDownload(db, state, ctx.user, attachment))) throw errors.notFound('File not found');
  return { pathId, attachment };
}

export const downloadFile = endpoint({
  method: 'GET',
  path: '/user_uploads/{realm_id}/{bucket}/{random}/{name}',
  root: true,
  auth: 'user',
  params: PATH_PARAMS,
  async handle(ctx, p) {
    const { pathId, attachment } = await downloadable(ctx, p);
    const file = { key: attachmentKey(pathId), size: attachment.size, contentType: attachment.contentType, name: attachment.name };
    return new RawReply(fileReply(ctx.services.files.storage, file, ctx.request.headers.range));
  },
});

/** The reference's thumbnail URL of an uploaded image, served to exactly those who may download the upload. */
export const downloadThumbnail = endpoint({
  method: 'GET',
  path: '/user_uploads/thumbnail/{realm_id}/{bucket}/{random}/{name}/{format}',
  root: true,
  auth: 'user',
  params: { ...PATH_PARAMS, format: required(str({ maxLength: 40 })) },
  async handle(ctx, p) {
    const { pathId } = await downloadable(ctx, p);
    const files = ctx.services.files;
    const file = await files.thumbnailer.thumbnailFile(ctx.realm.id, pathId, p.format);
    if (!file) throw errors.notFound('File not found');
    return new RawReply(fileReply(files.storage, file, ctx.request.headers.range));
  },
});

export const getAttachments = endpoint({
  method: 'GET',
  path: '/attachments',
  auth: 'user',
  params: {},
  async handle(ctx) {
    const db = ctx.services.db;
    const mine = await db.attachments.forOwner(ctx.user.id);
    return {
      attachments: mine.map((a) => attachmentRecord(a, a.messages)),
      upload_space_used: await db.attachments.spaceUsed(ctx.realm.state.realm.id),
    };
  },
});

export const deleteAttachment = endpoint({
  method: 'DELETE',
  path: '/attachments/{attachment_id}',
  auth: 'user',
  params: { attachment_id: required(int()) },
  async handle(ctx, p) {
    const removed = await ctx.realm.dispatch('attachments.delete', { actorId: ctx.user.id, id: p.attachment_id });
    await ctx.services.files.removeStored(removed);
    return {};
  },
});

export const uploadEndpoints = [uploadFile, downloadFile, downloadThumbnail, getAttachments, deleteAttachment];
