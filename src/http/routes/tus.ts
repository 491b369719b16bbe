// The tus 1.0 resumable upload endpoint (core, creation, termination, expiration) for API-key clients; a finished
// upload becomes an attachment like POST /user_uploads's, and the final PATCH answers with its url and filename.
import { TUS_EXTENSIONS, TUS_VERSION, parseMetadata, tusDataKey, type TusUpload } from '../../files/tus.js';
import { endpoint, RawReply, type RequestContext } from '../endpoint.js';
import { errors } from '../../errors.js';
import { required, str } from '../../params.js';

const BASE = '/api/v1/tus';

function reply(status: number, headers: Record<string, string> = {}, body = ''): RawReply {
  return new RawReply({ status, contentType: 'text/plain; charset=utf-8', headers: { 'Tus-Resumable': TUS_VERSION, ...headers }, body });
}

function checkVersion(ctx: RequestContext): void {
  if (ctx.request.headers['tus-resumable'] !== TUS_VERSION) throw errors.tusVersionUnsupported();
}

/** A non-negative integer header; 400 when missing or malformed. */
function intHeader(ctx: RequestContext, name: string): number {
  const raw = ctx.request.headers[name.toLowerCase()];
  if (raw === undefined || !/^\d{1,15}$/.test(raw.trim())) throw errors.badRequest(`Missing or invalid ${name} header`);
  return Number(raw.trim());
}

async function findUpload(ctx: RequestContext<'user'>, id: string): Promise<TusUpload> {
  const upload = await ctx.services.files.tus.get(id, ctx.realm.state.realm.id, ctx.user.id);
  if (!upload) throw errors.notFound();
  return upload;
}

const expires = (u: TusUpload) => ({ 'Upload-Expires': new Date(u.expiresAt).toUTCString() });

export const tusOptions = endpoint({
  method: 'OPTIONS',
  path: '/tus',
  auth: 'none',
  params: {},
  handle: (ctx) =>
    reply(204, { 'Tus-Version': TUS_VERSION, 'Tus-Extension': TUS_EXTENSIONS, 'Tus-Max-Size': String(ctx.services.files.maxUploadBytes) }),
});

export const tusCreate = endpoint({
  method: 'POST',
  path: '/tus',
  auth: 'user',
  params: {},
  async handle(ctx) {
    checkVersion(ctx);
    const { files } = ctx.services;
    if (ctx.request.headers['upload-defer-length'] !== undefined) throw errors.badRequest('Upload-Defer-Length is not supported');
    const length = intHeader(ctx, 'Upload-Length');
    if (length > files.maxUploadBytes) throw files.tooLarge();
    const metadata = parseMetadata(ctx.request.headers['upload-metadata']);
    const upload = await files.tus.create(ctx.realm.state.realm.id, ctx.user.id, length, metadata);
    return reply(201, { Location: `${BASE}/${upload.id}`, ...expires(upload) });
  },
});

export const tusHead = endpoint({
  method: 'HEAD',
  path: '/tus/{upload_id}',
  auth: 'user',
  params: { upload_id: required(str()) },
  async handle(ctx, p) {
    checkVersion(ctx);
    const found = await ctx.services.files.tus.status(p.upload_id, { realmId: ctx.realm.state.realm.id, userId: ctx.user.id });
    if (!found) throw errors.notFound();
    const { upload, offset } = found;
    return reply(200, { 'Upload-Offset': String(offset), 'Upload-Length': String(upload.length), 'Cache-Control': 'no-store', ...expires(upload) });
  },
});

export const tusPatch = endpoint({
  method: 'PATCH',
  path: '/tus/{upload_id}',
  auth: 'user',
  body: 'stream',
  params: { upload_id: required(str()) },
  async handle(ctx, p) {
    checkVersion(ctx);
    const { files } = ctx.services;
    const type = (ctx.request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/offset+octet-stream') throw errors.unsupportedMediaType(type);
    const offset = intHeader(ctx, 'Upload-Offset');
    const owner = { realmId: ctx.realm.state.realm.id, userId: ctx.user.id };
    const body = { chunks: ctx.request.body, declaredLength: ctx.request.body.declaredLength };
    const outcome = await files.tus.patch(p.upload_id, owner, offset, body, async (upload) => {
      const name = upload.metadata.filename ?? upload.metadata.name ?? 'uploaded-file';
      const { pathId, key } = files.newUpload(upload.realmId, name);
      await files.storage.move(tusDataKey(upload.id), key);
      const type = upload.metadata.filetype ?? upload.metadata.type;
      return { ...(await files.record(ctx.realm, ctx.user.id, pathId, name, type, upload.length)) };
    });
    if (!outcome.result) return reply(204, { 'Upload-Offset': String(outcome.offset), ...expires(outcome.upload) });
    const headers = { 'Tus-Resumable': TUS_VERSION, 'Upload-Offset': String(outcome.offset) };
    return new RawReply({ status: 200, headers, body: JSON.stringify({ result: 'success', msg: '', ...outcome.result }) });
  },
});

export const tusTerminate = endpoint({
  method: 'DELETE',
  path: '/tus/{upload_id}',
  auth: 'user',
  params: { upload_id: required(str()) },
  async handle(ctx, p) {
    checkVersion(ctx);
    const upload = await findUpload(ctx, p.upload_id);
    await ctx.services.files.tus.remove(upload.id);
    return reply(204);
  },
});

export const tusEndpoints = [tusOptions, tusCreate, tusHead, tusPatch, tusTerminate];
