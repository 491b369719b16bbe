// The register snapshot's user lists (realm_users, realm_non_active_users) for one viewer.
//
// A user's record has a few forms — client_gravatar or not, delivery_email shown or not, avatar_url left out
// or not — and every register of the realm shares them: each form is built once per version of the user.
// Users in the working set are never changed in place (a change puts a new object), so a cache keyed by the
// user object is invalidated by the change itself. The lists are returned as JSON (RawJson) that the register
// endpoint splices into its response, so the records are not serialized again either; and when a register's
// lists are exactly those of the previous register of the same kind of viewer, their JSON is reused whole.
//
// Per viewer: with user_avatar_url_field_optional, long-term idle users come without avatar_url (the
// reference's rule, see src/realm/people/long-term-idle.ts); a viewer the realm's can_access_all_users_group
// restricts sees only the users they can access, the others either left out (user_list_incomplete) or as
// "Unknown user" placeholders (src/realm/access/users.ts).
import { longTermIdleIds } from '../../realm/people/long-term-idle.js';
import { accessibleUsersOf, unknownUser } from '../../realm/access/users.js';
import type { RealmState } from '../../realm/state.js';
import type { User } from '../../model/realm.js';
import { canSeeDeliveryEmail, formatUser } from '../../realm/user-format.js';
import { RawJson } from './raw-json.js';
import type { SnapshotContext, SnapshotRequest } from './types.js';

type UserRecord = Record<string, unknown>;

const CLIENT_GRAVATAR = 1;
const SEES_EMAIL = 2;
const NO_AVATAR = 4;
/** The "Unknown user" placeholder in place of the user (user_list_incomplete). */
const PLACEHOLDER = 8;

/** What is kept per version of a user: its records and their JSON by form, and who sees its email address. */
interface UserForms {
  records: (UserRecord | undefined)[];
  json: (Buffer | undefined)[];
  /** Viewer role → whether a viewer of that role (other than the user) sees delivery_email. */
  seesEmail: Map<number, boolean>;
}

const cache = new WeakMap<User, UserForms>();

function formsOf(u: User): UserForms {
  let f = cache.get(u);
  if (!f) cache.set(u, (f = { records: [], json: [], seesEmail: new Map() }));
  return f;
}

/** The shared record of `u` in one form (callers must not modify it); `emailDomain` is its realm's. */
export function userRecord(u: User, form: number, emailDomain: string): UserRecord {
  const f = formsOf(u);
  let rec = f.records[form];
  if (!rec) {
    if (form === PLACEHOLDER) {
      rec = unknownUser(u.id, emailDomain);
    } else if (form & NO_AVATAR) {
      rec = { ...userRecord(u, form & ~NO_AVATAR, emailDomain) };
      delete rec.avatar_url;
    } else {
      rec = formatUser(u, { clientGravatar: (form & CLIENT_GRAVATAR) !== 0, includeDeliveryEmail: (form & SEES_EMAIL) !== 0, emailDomain });
    }
    f.records[form] = rec;
  }
  return rec;
}

/** The record's JSON as UTF-8 bytes, encoded once per user version and form. */
function userJson(u: User, form: number, emailDomain: string): Buffer {
  const f = formsOf(u);
  return (f.json[form] ??= Buffer.from(JSON.stringify(userRecord(u, form, emailDomain))));
}

/** canSeeDeliveryEmail, which depends on the viewer only through their ID and role, remembered per role. */
function seesEmail(viewer: User | null, u: User): boolean {
  if (!viewer) return canSeeDeliveryEmail(null, u);
  if (viewer.id === u.id) return true;
  const known = formsOf(u).seesEmail;
  let sees = known.get(viewer.role);
  if (sees === undefined) known.set(viewer.role, (sees = canSeeDeliveryEmail(viewer, u)));
  return sees;
}

async function idleUsers({ state, presence }: SnapshotContext<'presence'>): Promise<Set<number>> {
  return longTermIdleIds(state.usersById.values(), await presence.all(), presence.now());
}

/** A list as (user, form) pairs; the placeholder form stands for the "Unknown user" in place of the user. */
interface ListPlan {
  users: User[];
  forms: number[];
}

/** A list's JSON, one buffer, with the byte offsets where each record starts and ends. */
interface BuiltList {
  plan: ListPlan;
  bytes: Buffer;
  starts: number[];
  ends: number[];
}

/**
 * The last list built per realm and kind of viewer. A register whose list is the same (user, form) pairs — the same
 * versions of the same users in the same forms, checked pair by pair — reuses its bytes as they are; the viewer's
 * own record (the one pair a viewer of the same kind may see in another form: their own email address) is allowed
 * to differ and is spliced in from byte offsets.
 */
const lastLists = new WeakMap<object, Map<string, BuiltList>>();

/** Where `b` differs from `a` only at the viewer's own index: -1 when identical, -2 when otherwise different. */
function differingIndex(a: ListPlan, b: ListPlan, viewer: User | null): number {
  if (a.users.length !== b.users.length) return -2;
  let at = -1;
  for (let i = 0; i < a.users.length; i++) {
    if (a.users[i] !== b.users[i]) return -2;
    if (a.forms[i] !== b.forms[i]) {
      if (a.users[i] !== viewer) return -2;
      at = i;
    }
  }
  return at;
}

function build(plan: ListPlan, emailDomain: string): BuiltList {
  const chunks: Buffer[] = [OPEN];
  const starts: number[] = [];
  const ends: number[] = [];
  let at = 1;
  plan.users.forEach((u, i) => {
    if (i > 0) {
      chunks.push(COMMA);
      at++;
    }
    const json = userJson(u, plan.forms[i]!, emailDomain);
    starts.push(at);
    chunks.push(json);
    at += json.length;
    ends.push(at);
  });
  chunks.push(CLOSE);
  return { plan, bytes: Buffer.concat(chunks, at + 1), starts, ends };
}

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');

function listJson(realmKey: RealmState, key: string, plan: ListPlan, viewer: User | null): RawJson {
  let byKey = lastLists.get(realmKey);
  if (!byKey) lastLists.set(realmKey, (byKey = new Map()));
  const last = byKey.get(key);
  const at = last ? differingIndex(last.plan, plan, viewer) : -2;
  if (last && at === -1) return new RawJson([last.bytes]);
  if (last && at >= 0) {
    const own = userJson(plan.users[at]!, plan.forms[at]!, realmKey.emailDomain);
    return new RawJson([last.bytes.subarray(0, last.starts[at]), own, last.bytes.subarray(last.ends[at])]);
  }
  const built = build(plan, realmKey.emailDomain);
  byKey.set(key, built);
  return new RawJson([built.bytes]);
}

const accessByContext = new WeakMap<SnapshotRequest, Promise<Set<number> | null>>();

/** The users this register's viewer can see (null: everyone), asked of the database once per snapshot. */
export function snapshotAccess(ctx: SnapshotContext<'db'>): Promise<Set<number> | null> {
  let known = accessByContext.get(ctx);
  if (!known) accessByContext.set(ctx, (known = accessibleUsersOf(ctx.db, ctx.state, ctx.user)));
  return known;
}

/** realm_users and realm_non_active_users, as JSON spliced into the register response. */
export async function realmUserLists(ctx: SnapshotContext<'db' | 'presence'>): Promise<{ realm_users: RawJson; realm_non_active_users: RawJson }> {
  const { state, user: viewer, registration } = ctx;
  const caps = registration.capabilities;
  const accessible = await snapshotAccess(ctx);
  const idle = caps.user_avatar_url_field_optional ? await idleUsers(ctx) : null;
  const base = registration.clientGravatar ? CLIENT_GRAVATAR : 0;
  const active: ListPlan = { users: [], forms: [] };
  const inactive: ListPlan = { users: [], forms: [] };
  for (const u of state.usersById.values()) {
    if (accessible && !accessible.has(u.id)) {
      // The placeholder is an active user, whatever the real one is.
      if (!caps.user_list_incomplete) {
        active.users.push(u);
        active.forms.push(PLACEHOLDER);
      }
      continue;
    }
    let form = base;
    if (seesEmail(viewer, u)) form |= SEES_EMAIL;
    if (idle?.has(u.id)) form |= NO_AVATAR;
    const list = u.isActive ? active : inactive;
    list.users.push(u);
    list.forms.push(form);
  }
  const key = `${viewer?.role ?? 'spectator'}|${base}`;
  return { realm_users: listJson(state, `active|${key}`, active, viewer), realm_non_active_users: listJson(state, `inactive|${key}`, inactive, viewer) };
}
