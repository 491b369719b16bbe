// Running the organization: PATCH /realm, its email domains, its icon and logos, and POST /realm/deactivate.
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { imageReply } from '../file-reply.js';
import { realmImage } from '../../files/image-codec.js';
import { MULTIPART_OVERHEAD, receiveSingleFile } from '../../files/multipart.js';
import { LIMITS } from '../../limits.js';
import { brandingData, brandingKey, currentBrandingFile } from '../../realm/admin/branding.js';
import { formatDomain } from '../../realm/admin/domains.js';
import { REALM_GROUP_PROPERTIES, type GroupSettingRequest } from '../../realm/admin/group-properties.js';
import { REALM_PROPERTIES } from '../../realm/admin/properties.js';
import { requireOwner, updateRealmReply } from '../../realm/admin/realm.commands.js';
import { groupSettingUpdateParam } from '../../realm/people/groups.js';
import { requireAdmin } from '../../realm/access/roles.js';
import type { BrandingImage } from '../../model/realm.js';
import { endpoint, RawReply, type RequestContext } from '../endpoint.js';
import { errors } from '../../errors.js';
import { bool, int, nullable, optional, required, sentSettings, str, type Field } from '../../params.js';
import { realmUrl } from '../../urls.js';

const propertyFields = Object.fromEntries(Object.entries(REALM_PROPERTIES).map(([n, d]) => [n, optional(d.type)]));
const groupFields = Object.fromEntries(Object.keys(REALM_GROUP_PROPERTIES).map((n) => [n, optional(groupSettingUpdateParam())]));

export const updateRealm = endpoint({
  method: 'PATCH',
  path: '/realm',
  auth: 'user',
  params: { ...propertyFields, ...groupFields } as Record<string, Field<unknown>>,
  async handle(ctx, p) {
    requireAdmin(ctx.user);
    const plan = await ctx.realm.dispatch('realm.update', {
      actorId: ctx.user.id,
      properties: sentSettings(Object.keys(REALM_PROPERTIES), p),
      groups: sentSettings(Object.keys(REALM_GROUP_PROPERTIES), p) as Record<string, GroupSettingRequest>,
    });
    return updateRealmReply(plan);
  },
});

export const deactivateRealm = endpoint({
  method: 'POST',
  path: '/realm/deactivate',
  auth: 'user',
  params: { deletion_delay_days: optional(nullable(int())) },
  async handle(ctx, p) {
    requireOwner(ctx.user);
    // The reference's MIN_DEACTIVATED_REALM_DELETION_DAYS; no data is scheduled for deletion here.
    if (p.deletion_delay_days != null && p.deletion_delay_days < 14) {
      throw errors.badRequest('Data deletion time must be at least 14 days in the future.');
    }
    await ctx.realm.dispatch('realm.deactivate', { actorId: ctx.user.id });
    return {};
  },
});

export const listRealmDomains = endpoint({
  method: 'GET',
  path: '/realm/domains',
  auth: 'user',
  params: {},
  handle: (ctx) => ({ domains: ctx.realm.state.realm.domains.map(formatDomain) }),
});

export const addRealmDomain = endpoint({
  method: 'POST',
  path: '/realm/domains',
  auth: 'user',
  params: { domain: required(str({ maxLength: 1000 })), allow_subdomains: required(bool()) },
  async handle(ctx, p) {
    const { id, domains } = await ctx.realm.dispatch('realmDomains.add', {
      actorId: ctx.user.id,
      domain: p.domain,
      allowSubdomains: p.allow_subdomains,
    });
    return { new_domain: [id, domains.find((d) => d.id === id)!.domain] };
  },
});

export const changeRealmDomain = endpoint({
  method: 'PATCH',
  path: '/realm/domains/{domain}',
  auth: 'user',
  params: { domain: required(str({ maxLength: 1000 })), allow_subdomains: required(bool()) },
  async handle(ctx, p) {
    await ctx.realm.dispatch('realmDomains.change', { actorId: ctx.user.id, domain: p.domain, allowSubdomains: p.allow_subdomains });
    return {};
  },
});

export const removeRealmDomain = endpoint({
  method: 'DELETE',
  path: '/realm/domains/{domain}',
  auth: 'user',
  params: { domain: required(str({ maxLength: 1000 })) },
  async handle(ctx, p) {
    await ctx.realm.dispatch('realmDomains.remove', { actorId: ctx.user.id, domain: p.domain });
    return {};
  },
});

const urlOf = (ctx: RequestContext<'user'>) => realmUrl(ctx.services.config, ctx.realm.state.realm.stringId);

/** Streams an uploaded icon or logo to storage and makes it the realm's. */
async function uploadBranding(ctx: RequestContext<'user'>, which: BrandingImage | ((fields: Map<string, string>) => BrandingImage)): Promise<void> {
  requireAdmin(ctx.user);
  const { files } = ctx.services;
  const realmId = ctx.realm.state.realm.id;
  const kind = which === 'icon' ? 'icon' : 'logo';
  const mib = kind === 'icon' ? LIMITS.max_icon_file_size_mib : LIMITS.max_logo_file_size_mib;
  const limitBytes = mib * 1024 * 1024;
  const tooLarge = () => errors.fileTooLarge(mib);
  ctx.request.body.limit(limitBytes + MULTIPART_OVERHEAD, tooLarge);
  // A name of its own for every upload: concurrent uploads never write over each other.
  const base = `${kind}-${randomBytes(8).toString('hex')}`;
  const { result: file, fields } = await receiveSingleFile(ctx.request.body, {
    contentType: ctx.request.headers['content-type'] ?? '',
    limitBytes,
    tooLarge,
    wrongFileCount: () => errors.uploadExactlyOne(kind),
    async store(f) {
      // At most `limitBytes` (busboy stops the file there); sized down to the reference's dimensions on libvips'
      // threads, stored as PNG.
      const parts: Buffer[] = [];
      for await (const c of f.chunks) parts.push(c);
      const png = await realmImage(Buffer.concat(parts), kind);
      if (!png) throw errors.badRequest('Could not decode image; did you upload an image file?');
      const name = `${base}.png`;
      await files.storage.put(brandingKey(realmId, name), Readable.from([png]));
      return name;
    },
    discard: (stored) => files.storage.delete(brandingKey(realmId, stored)),
  });
  let replaced: string | null;
  try {
    const image = typeof which === 'function' ? which(fields) : which;
    ({ replaced } = await ctx.realm.dispatch('realm.branding', { actorId: ctx.user.id, image, file, realmUrl: urlOf(ctx) }));
  } catch (err) {
    await files.storage.delete(brandingKey(realmId, file)).catch(() => undefined);
    throw err;
  }
  // The previous upload is no longer anyone's image.
  if (replaced) await files.storage.delete(brandingKey(realmId, replaced)).catch(() => undefined);
}

async function resetBranding(ctx: RequestContext<'user'>, image: BrandingImage): Promise<void> {
  requireAdmin(ctx.user);
  // The file stays: a cached URL may still point at it, and the next upload replaces it.
  await ctx.realm.dispatch('realm.branding', { actorId: ctx.user.id, image, file: null, realmUrl: urlOf(ctx) });
}

const iconUrl = (ctx: RequestContext<'user'>) => ({
  icon_url: brandingData(ctx.realm.state, urlOf(ctx), 'icon').icon_url,
});

export const uploadIcon = endpoint({
  method: 'POST',
  path: '/realm/icon',
  auth: 'user',
  body: 'stream',
  params: {},
  async handle(ctx) {
    await uploadBranding(ctx, 'icon');
    return iconUrl(ctx);
  },
});

export const deleteIcon = endpoint({
  method: 'DELETE',
  path: '/realm/icon',
  auth: 'user',
  params: {},
  async handle(ctx) {
    await resetBranding(ctx, 'icon');
    return iconUrl(ctx);
  },
});

const nightParam = bool();

/** `night` (required, as in the reference) as a field of the multipart body or in the query string. */
export const uploadLogo = endpoint({
  method: 'POST',
  path: '/realm/logo',
  auth: 'user',
  body: 'stream',
  params: { night: optional(nightParam) },
  async handle(ctx, p) {
    await uploadBranding(ctx, (fields) => {
      const field = fields.get('night');
      const night = field !== undefined ? nightParam.fromRaw(field, 'night') : p.night;
      if (night === undefined) throw errors.missingArgument('night');
      return night ? 'night_logo' : 'logo';
    });
    return {};
  },
});

export const deleteLogo = endpoint({
  method: 'DELETE',
  path: '/realm/logo',
  auth: 'user',
  params: { night: required(bool()) },
  async handle(ctx, p) {
    await resetBranding(ctx, p.night ? 'night_logo' : 'logo');
    return {};
  },
});

/** Serves an uploaded icon or logo (the URLs register and the realm events give). */
export const brandingImage = endpoint({
  method: 'GET',
  path: '/user_avatars/{realm_id}/realm/{file_name}',
  root: true,
  auth: 'none',
  params: { realm_id: required(str()), file_name: required(str()) },
  async handle(ctx, p) {
    const state = ctx.realm.state;
    const known = String(state.realm.id) === p.realm_id && currentBrandingFile(state, p.file_name);
    const reply = known ? await imageReply(ctx.services.files.storage, brandingKey(state.realm.id, p.file_name), p.file_name, ctx.request.headers.range) : null;
    if (!reply) throw errors.notFound('File not found');
    return new RawReply(reply);
  },
});

export const realmAdminEndpoints = [
  updateRealm,
  deactivateRealm,
  listRealmDomains,
  addRealmDomain,
  changeRealmDomain,
  removeRealmDomain,
  uploadIcon,
  deleteIcon,
  uploadLogo,
  deleteLogo,
  brandingImage,
];
