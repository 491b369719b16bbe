// The register snapshot's user lists (realm_users, realm_non_active_users) for one viewer.
//
// A user's record has a few forms — client_gravatar or not, delivery_email shown or not, avatar_url left out
// or not — and every register of the realm shares them: each form is built once per version of the user.
// Users in the working set are never changed in place (a change puts a new object), so a cache keyed by the
// user object is invalidated by the change itself. The lists are returned as JSON (RawJson) that the register
// endpoint splices into its response, so the records are not serialized again either; and when a register's
// lists are exactly those of the previous register of the same kind of viewer, their JSON is reused whole (the
// viewer's own record, which they see with their email address, spliced in). Which user goes in which form is
// itself kept per kind of viewer while the realm's users stay the same (RealmState.usersVersion), so such a
// register does not walk the user list at all.
//
// Per viewer: with user_avatar_url_field_optional, long-term idle users come without avatar_url (the
// reference's rule, see src/realm/people/long-term-idle.ts); a viewer the realm's can_access_all_users_group
// restricts sees only the users they can access, the others either left out (user_list_incomplete) or as
// "Unknown user" placeholders (src/realm/access/users.ts).
import { longTermIdleIds } from '../../realm/people/long-term-idle.js';
import { accessibleUsersOf, unknownUser } from '../../realm/access/users.js';
import type { RealmState } from '../../realm/state.js';
import type { User } from '../../model/realm.js';
import { canSeeDeliveryEmail, formatUser, roleSeesDeliveryEmail } from '../../realm/user-format.js';
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

/** Whether a viewer of `role` other than `u` sees u's delivery_email, remembered per role; spectators (null) see
 *  none but bots'. */
function roleSeesEmail(role: number | null, u: User): boolean {
  if (role === null) return canSeeDeliveryEmail(null, u);
  const known = formsOf(u).seesEmail;
  let sees = known.get(role);
  if (sees === undefined) known.set(role, (sees = roleSeesDeliveryEmail(role, u)));
  return sees;
}

async function idleUsers({ state, presence }: SnapshotContext<'presence'>): Promise<Set<number>> {
  return longTermIdleIds(state.usersById.values(), await presence.all(), presence.now());
}

/** A list as (user, form) pairs, each in the form any viewer of the kind sees (the viewer's own record aside, which the
 *  viewer sees with their email address); the placeholder form stands for the "Unknown user" in place of the user. */
interface ListPlan {
  users: User[];
  forms: number[];
  /** Each user's index in the list. */
  indexOf: Map<number, number>;
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
 * versions of the same users in the same forms, checked pair by pair unless it is the very same plan — reuses its bytes
 * as they are; the viewer's own record, when the viewer sees it in another form (their own email address), is spliced
 * in from byte offsets.
 */
const lastLists = new WeakMap<object, Map<string, BuiltList>>();

function samePairs(a: ListPlan, b: ListPlan): boolean {
  if (a === b) return true;
  if (a.users.length !== b.users.length) return false;
  for (let i = 0; i < a.users.length; i++) {
    if (a.users[i] !== b.users[i] || a.forms[i] !== b.forms[i]) return false;
  }
  return true;
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

/** The list's JSON for `viewer`, whose own record (if in the list and not a placeholder) they see with their email. */
function listJson(realmKey: RealmState, key: string, plan: ListPlan, viewer: User | null): RawJson {
  let byKey = lastLists.get(realmKey);
  if (!byKey) lastLists.set(realmKey, (byKey = new Map()));
  let built = byKey.get(key);
  if (!built || !samePairs(built.plan, plan)) byKey.set(key, (built = build(plan, realmKey.emailDomain)));
  const at = viewer ? plan.indexOf.get(viewer.id) : undefined;
  const own = at === undefined || plan.forms[at] === PLACEHOLDER ? undefined : plan.forms[at]! | SEES_EMAIL;
  if (at === undefined || own === undefined || own === plan.forms[at]) return new RawJson([built.bytes]);
  const ownJson = userJson(plan.users[at]!, own, realmKey.emailDomain);
  return new RawJson([built.bytes.subarray(0, built.starts[at]), ownJson, built.bytes.subarray(built.ends[at])]);
}

/** The plans of both lists for a kind of viewer, kept per realm while its users stay the same (usersVersion), for the
 *  registers whose lists depend on nothing else (no access restriction, no idle users left without avatars). */
const plansByRealm = new WeakMap<RealmState, Map<string, { version: number; active: ListPlan; inactive: ListPlan }>>();

function plans(state: RealmState, role: number | null, base: number, accessible: Set<number> | null, idle: Set<number> | null, placeholders: boolean) {
  const active: ListPlan = { users: [], forms: [], indexOf: new Map() };
  const inactive: ListPlan = { users: [], forms: [], indexOf: new Map() };
  const add = (list: ListPlan, u: User, form: number) => {
    list.indexOf.set(u.id, list.users.length);
    list.users.push(u);
    list.forms.push(form);
  };
  for (const u of state.usersById.values()) {
    if (accessible && !accessible.has(u.id)) {
      // The placeholder is an active user, whatever the real one is.
      if (placeholders) add(active, u, PLACEHOLDER);
      continue;
    }
    let form = base;
    if (roleSeesEmail(role, u)) form |= SEES_EMAIL;
    if (idle?.has(u.id)) form |= NO_AVATAR;
    add(u.isActive ? active : inactive, u, form);
  }
  return { active, inactive };
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
  const role = viewer?.role ?? null;
  const key = `${role ?? 'spectator'}|${base}`;
  let lists;
  if (accessible === null && idle === null) {
    let byKey = plansByRealm.get(state);
    if (!byKey) plansByRealm.set(state, (byKey = new Map()));
    lists = byKey.get(key);
    if (lists?.version !== state.usersVersion) byKey.set(key, (lists = { version: state.usersVersion, ...plans(state, role, base, null, null, false) }));
  } else {
    lists = plans(state, role, base, accessible, idle, !caps.user_list_incomplete);
  }
  return { realm_users: listJson(state, `active|${key}`, lists.active, viewer), realm_non_active_users: listJson(state, `inactive|${key}`, lists.inactive, viewer) };
}
