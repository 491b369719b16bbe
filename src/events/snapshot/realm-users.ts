// The register snapshot's user lists (realm_users, realm_non_active_users) for one viewer.
//
// A user's record has a few forms — client_gravatar or not, delivery_email shown or not, avatar_url left out
// or not — and every register of the realm shares them: each form is built once per version of the user.
// Users in the working set are never changed in place (a change puts a new object), so a cache keyed by the
// user object is invalidated by the change itself.
//
// Per viewer: with user_avatar_url_field_optional, long-term idle users come without avatar_url (the
// reference's rule, see src/realm/people/long-term-idle.ts); a viewer the realm's can_access_all_users_group
// restricts sees only the users they can access, the others either left out (user_list_incomplete) or as
// "Unknown user" placeholders (src/realm/people/user-access.ts).
import { longTermIdleIds } from '../../realm/people/long-term-idle.js';
import { accessibleUserIds, accessRestricted, unknownUser } from '../../realm/people/user-access.js';
import type { User } from '../../realm/types.js';
import { canSeeDeliveryEmail, formatUser } from '../../realm/user-format.js';
import type { SnapshotContext } from './types.js';

type UserRecord = Record<string, unknown>;

const CLIENT_GRAVATAR = 1;
const SEES_EMAIL = 2;
const NO_AVATAR = 4;

const forms = new WeakMap<User, (UserRecord | undefined)[]>();

/** The shared record of `u` in one form (callers must not modify it). */
export function userRecord(u: User, form: number): UserRecord {
  let list = forms.get(u);
  if (!list) forms.set(u, (list = []));
  let rec = list[form];
  if (!rec) {
    if (form & NO_AVATAR) {
      rec = { ...userRecord(u, form & ~NO_AVATAR) };
      delete rec.avatar_url;
    } else {
      rec = formatUser(u, { clientGravatar: (form & CLIENT_GRAVATAR) !== 0, includeDeliveryEmail: (form & SEES_EMAIL) !== 0 });
    }
    list[form] = rec;
  }
  return rec;
}

/** Users the viewer shares a direct-message conversation with (for a restricted viewer). */
async function directPartners(ctx: SnapshotContext, viewer: User): Promise<number[]> {
  const rows = await ctx.services.db.userMessages.recentDirectConversations(viewer.id, 1000);
  return rows.flatMap((r) => r.members);
}

async function idleUsers(ctx: SnapshotContext): Promise<Set<number>> {
  const { state, services } = ctx;
  const presences = await services.presence.all(await services.realms.get(state.realm.id));
  return longTermIdleIds(state.usersById.values(), presences, services.presence.now());
}

export async function realmUserLists(ctx: SnapshotContext): Promise<{ realm_users: UserRecord[]; realm_non_active_users: UserRecord[] }> {
  const { state, user: viewer, registration } = ctx;
  const caps = registration.capabilities;
  const accessible = accessRestricted(state, viewer) ? accessibleUserIds(state, viewer, await directPartners(ctx, viewer)) : null;
  const idle = caps.user_avatar_url_field_optional ? await idleUsers(ctx) : null;
  const base = registration.clientGravatar ? CLIENT_GRAVATAR : 0;
  const active: UserRecord[] = [];
  const inactive: UserRecord[] = [];
  for (const u of state.usersById.values()) {
    if (accessible && !accessible.has(u.id)) {
      // The placeholder is an active user, whatever the real one is.
      if (!caps.user_list_incomplete) active.push(unknownUser(u.id));
      continue;
    }
    let form = base;
    if (canSeeDeliveryEmail(viewer, u)) form |= SEES_EMAIL;
    if (idle?.has(u.id)) form |= NO_AVATAR;
    (u.isActive ? active : inactive).push(userRecord(u, form));
  }
  return { realm_users: active, realm_non_active_users: inactive };
}
