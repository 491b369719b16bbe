// Data exports (administrators): POST/GET /export/realm, DELETE /export/realm/{export_id},
// GET /export/realm/consents, and the archive's download below /user_avatars/exports/.
import { fileReply } from '../file-reply.js';
import { consentingUserIds, deleteExport, formatExport, requestExport, type ExportDeps } from '../../export/realm-exports.js';
import { requireAdmin } from '../../realm/access/roles.js';
import { endpoint, RawReply, type Endpoint, type RequestContext } from '../endpoint.js';
import { errors } from '../../errors.js';
import { int, intEnum, required, str, withDefault } from '../../params.js';
import { realmUrl } from '../../urls.js';

function deps(ctx: RequestContext): ExportDeps {
  const { db, files, hub, log } = ctx.services;
  return { db, storage: files.storage, hub, log };
}

const url = (ctx: RequestContext) => realmUrl(ctx.services.config, ctx.realm.state.realm.stringId);

const createExport = endpoint({
  method: 'POST',
  path: '/export/realm',
  auth: 'user',
  params: { export_type: withDefault(intEnum([1, 2] as const), 1) },
  async handle(ctx, p) {
    requireAdmin(ctx.user);
    return { id: await requestExport(deps(ctx), ctx.realm, url(ctx), ctx.user.id, p.export_type) };
  },
});

const listExports = endpoint({
  method: 'GET',
  path: '/export/realm',
  auth: 'user',
  params: {},
  async handle(ctx) {
    requireAdmin(ctx.user);
    const rows = await ctx.services.db.realmExports.forRealm(ctx.realm.state.realm.id);
    return { exports: rows.map((r) => formatExport(r, url(ctx))) };
  },
});

const removeExport = endpoint({
  method: 'DELETE',
  path: '/export/realm/{export_id}',
  auth: 'user',
  params: { export_id: required(int()) },
  async handle(ctx, p) {
    requireAdmin(ctx.user);
    await deleteExport(deps(ctx), ctx.realm, url(ctx), p.export_id);
    return {};
  },
});

const exportConsents = endpoint({
  method: 'GET',
  path: '/export/realm/consents',
  auth: 'user',
  params: {},
  handle(ctx) {
    requireAdmin(ctx.user);
    const consenting = new Set(consentingUserIds(ctx.realm.state));
    const users = [...ctx.realm.state.usersById.values()].filter((u) => u.isActive && !u.isBot);
    return { export_consents: users.map((u) => ({ user_id: u.id, consented: consenting.has(u.id) })) };
  },
});

const downloadExport = endpoint({
  method: 'GET',
  path: '/user_avatars/exports/{realm_id}/{token}/{file_name}',
  root: true,
  auth: 'user',
  params: { realm_id: required(str()), token: required(str()), file_name: required(str()) },
  async handle(ctx, p) {
    requireAdmin(ctx.user);
    const key = `exports/${p.realm_id}/${p.token}/${p.file_name}`;
    const rows = await ctx.services.db.realmExports.forRealm(ctx.realm.state.realm.id);
    const row = rows.find((r) => r.storageKey === key && r.deleted === null);
    const size = row ? await ctx.services.files.storage.size(key) : null;
    if (size === null) throw errors.notFound('File not found');
    const file = { key, size, contentType: 'application/gzip', name: p.file_name };
    return new RawReply(fileReply(ctx.services.files.storage, file, ctx.request.headers.range));
  },
});

export const realmExportEndpoints: Endpoint[] = [createExport, listExports, removeExport, exportConsents, downloadExport];
