// Settings: PATCH /settings (the user's own) and PATCH /realm/user_settings_defaults (for users who join later).
import { hashNewPassword } from '../../auth/password-policy.js';
import { verifyPassword } from '../../auth/secrets.js';
import { requireAdmin } from '../../realm/access/roles.js';
import { REALM_DEFAULT_SETTING_NAMES, USER_SETTINGS } from '../../realm/people/user-settings.js';
import { endpoint } from '../endpoint.js';
import { errors } from '../../errors.js';
import { optional, sentSettings, str, type Field } from '../../params.js';

function catalogueFields(names: string[]): Record<string, Field<unknown>> {
  return Object.fromEntries(names.map((n) => [n, optional(USER_SETTINGS[n]!.type)]));
}

function isTimezone(tz: string): boolean {
  if (tz === '') return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const USER_SETTING_NAMES = Object.keys(USER_SETTINGS);

/** PATCH /settings, and its deprecated alias PATCH /settings/notifications (same parameters, as in the reference). */
const settingsEndpoint = (path: string) => endpoint({
  method: 'PATCH',
  path,
  auth: 'user',
  bots: 'none',
  params: {
    full_name: optional(str({ maxLength: 1000 })),
    old_password: optional(str({ maxLength: 1024 })),
    new_password: optional(str({ maxLength: 1024 })),
    timezone: optional(str({ maxLength: 100 })),
    ...catalogueFields(USER_SETTING_NAMES),
  },
  async handle(ctx, p) {
    const params = p as Record<string, unknown> & typeof p;
    if (params.timezone !== undefined && !isTimezone(params.timezone)) throw errors.badRequest('Invalid timezone');
    let passwordHash: string | undefined;
    if (params.new_password !== undefined) {
      if (params.old_password === undefined) throw errors.missingArgument('old_password');
      const cost = ctx.services.config.passwordHashCost;
      ctx.services.rateLimiter.passwordAttempt(ctx.request.remoteAddress);
      if (!(await verifyPassword(params.old_password, ctx.user.passwordHash, cost))) throw errors.badRequest('Wrong password!');
      passwordHash = await hashNewPassword(params.new_password, cost);
    }
    await ctx.realm.dispatch('settings.update', {
      userId: ctx.user.id,
      settings: sentSettings(USER_SETTING_NAMES, params),
      fullName: params.full_name,
      timezone: params.timezone,
      passwordHash,
    });
    return {};
  },
});

export const updateSettings = settingsEndpoint('/settings');
export const updateNotificationSettings = settingsEndpoint('/settings/notifications');

export const updateRealmUserSettingsDefaults = endpoint({
  method: 'PATCH',
  path: '/realm/user_settings_defaults',
  auth: 'user',
  params: catalogueFields(REALM_DEFAULT_SETTING_NAMES),
  async handle(ctx, p) {
    requireAdmin(ctx.user);
    await ctx.realm.dispatch('settings.realmDefaults', {
      actorId: ctx.user.id,
      settings: sentSettings(REALM_DEFAULT_SETTING_NAMES, p as Record<string, unknown>),
    });
    return {};
  },
});

export const settingsEndpoints = [updateSettings, updateNotificationSettings, updateRealmUserSettingsDefaults];
