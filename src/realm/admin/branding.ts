// The organization's icon and logos (day and night): their URLs and sources as register and events report them,
// and the commands that switch between an uploaded image and the default.
import type { CommandDef } from '../commands.js';
import { actor, activeUserIds, requireAdmin } from '../access/roles.js';
import type { RealmState } from '../state.js';
import type { BrandingImage, RealmBranding } from '../../model/realm.js';

/** Where an uploaded image is kept in file storage. */
export const brandingKey = (realmId: number, file: string) => `realm/${realmId}/${file}`;

/** The realm's current uploaded image called `file`, if it is one. */
export function currentBrandingFile(state: RealmState, file: string): boolean {
  return Object.values(state.realm.branding).some((b) => b.uploaded && b.file === file);
}

/** `{icon_url, icon_source}`, `{logo_url, logo_source}` or `{night_logo_url, night_logo_source}`. */
export function brandingData(state: RealmState, realmUrl: string, image: BrandingImage): Record<string, string> {
  const b = state.realm.branding[image];
  if (b?.uploaded) {
    return { [`${image}_url`]: `/user_avatars/${state.realm.id}/realm/${b.file}?version=${b.version}`, [`${image}_source`]: 'U' };
  }
  if (image === 'icon') return { icon_url: `${realmUrl}/static/images/logo/palaver-icon.png`, icon_source: 'G' };
  return { [`${image}_url`]: '', [`${image}_source`]: 'D' };
}

export interface SetBrandingInput {
  actorId: number;
  image: BrandingImage;
  /** The stored file's name for an upload; null goes back to the default (the file is kept for cached URLs). */
  file: string | null;
  realmUrl: string;
}
type BrandingPlan = { branding: RealmBranding; image: BrandingImage; realmUrl: string; replaced: string | null };

const setBranding: CommandDef<SetBrandingInput, BrandingPlan, BrandingPlan> = {
  check(state, input) {
    requireAdmin(actor(state, input.actorId));
    const before = state.realm.branding[input.image];
    const version = (before?.version ?? 1) + 1;
    const next = { uploaded: input.file !== null, version, file: input.file ?? before?.file ?? '' };
    const replaced = input.file !== null && before && before.file !== input.file ? before.file : null;
    return { branding: { ...state.realm.branding, [input.image]: next }, image: input.image, realmUrl: input.realmUrl, replaced };
  },
  async write(t, plan, state) {
    await t.realms.setBranding(state.realm.id, plan.branding);
    return plan;
  },
  apply(state, plan) {
    state.realm = { ...state.realm, branding: plan.branding };
  },
  events: (state, plan) => [
    {
      event: { kind: 'realm', op: 'update_dict', property: plan.image, data: brandingData(state, plan.realmUrl, plan.image) },
      users: activeUserIds(state),
    },
  ],
};

export const brandingCommands = { 'realm.branding': setBranding };

/** The icon and logo fields of register's realm section (`realm_icon_url`, `realm_logo_source`, …). */
export function registerBranding(state: RealmState, realmUrl: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const image of ['icon', 'logo', 'night_logo'] as const) {
    for (const [k, v] of Object.entries(brandingData(state, realmUrl, image))) out[`realm_${k}`] = v;
  }
  return out;
}
