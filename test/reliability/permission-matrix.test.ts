// The permission matrix: every endpoint of the route table × role (owner, administrator, moderator, member,
// guest, bot, deactivated user, user of another realm, spectator) × object visibility (public, private
// subscribed, private unsubscribed, web-public, archived channel), asserting "allowed" or the exact error; and
// nothing of a channel — message, topic, upload, name — in any reply to someone who may not read it.
import test from 'ava';
import { endpoints } from '../../src/http/routes/index.js';
import { ROLE } from '../../src/realm/types.js';
import type { Credentials, Response } from '../helpers/http.js';
import { addUser } from '../helpers/users.js';
import {
  DEACTIVATED, INVALID_API_KEY, NOT_LOGGED_IN, OK, contentAccess, describe, metadataAccess, observed, satisfies, type Outcome,
} from './matrix/outcomes.js';
import { rows, type Row } from './matrix/rows.js';
import { ACTIVE, ROLES, VISIBILITIES, buildWorld, type ActiveRole, type RoleName, type World } from './matrix/world.js';

/** Endpoints deliberately without a row, and why. */
const EXCLUDED: Record<string, string> = {};

let w: World;
test.before(async () => {
  w = await buildWorld();
});
test.after.always(async () => w?.s.close());

const key = (method: string, path: string) => `${method} ${path}`;
const endpointByKey = new Map(endpoints.map((e) => [key(e.method, e.path), e]));

test('every endpoint of the route table has a row in the matrix (or a justified exclusion)', (t) => {
  const covered = new Set([...rows.map((r) => key(r.method, r.path)), ...Object.keys(EXCLUDED)]);
  const missing = [...endpointByKey.keys()].filter((k) => !covered.has(k));
  t.deepEqual(missing, [], 'endpoints without a matrix row');
  const stale = [...covered].filter((k) => !endpointByKey.has(k));
  t.deepEqual(stale, [], 'rows for endpoints that no longer exist');
});

// A small pool: the matrix makes a few thousand requests on a shared machine.
let running = 0;
const waiting: (() => void)[] = [];
async function limited<T>(fn: () => Promise<T>): Promise<T> {
  if (running >= 6) await new Promise<void>((r) => waiting.push(r));
  running++;
  try {
    return await fn();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

/** The outcome the auth layer decides before any row-specific rule: for roles that do not authenticate here. */
function authOutcome(auth: string, role: RoleName): Outcome | undefined {
  if (auth !== 'user' && auth !== 'optional') return undefined;
  if (role === 'deactivated') return DEACTIVATED;
  if (role === 'otherRealm') return INVALID_API_KEY;
  if (role === 'spectator' && auth === 'user') return NOT_LOGGED_IN;
  return undefined;
}

/** Strings of the channels the role may not read (and names of those it may not know) that no reply may carry. */
function forbidden(role: RoleName): string[] {
  if (!(ACTIVE as readonly string[]).includes(role) && role !== 'spectator') return [];
  const r = role as ActiveRole | 'spectator';
  const out: string[] = [];
  for (const v of VISIBILITIES) {
    const ch = w.channels[v];
    if (!contentAccess(r, v)) out.push(ch.secret, ch.topic, ch.uploadUrl);
    if (!metadataAccess(r, v)) out.push(ch.name);
  }
  return out;
}

async function actorFor(row: Row, role: RoleName): Promise<Credentials | null> {
  if (!row.disposableActor || !(ACTIVE as readonly string[]).includes(role)) return w.creds(role);
  const roleCode = { owner: ROLE.OWNER, admin: ROLE.ADMINISTRATOR, moderator: ROLE.MODERATOR, member: ROLE.MEMBER, guest: ROLE.GUEST, bot: ROLE.MEMBER }[role as ActiveRole];
  return addUser(w.s, { role: roleCode, isBot: role === 'bot', fullName: `Disposable ${role}` });
}

for (const row of rows) {
  const e = endpointByKey.get(key(row.method, row.path));
  test(`${row.method} ${row.path}`, async (t) => {
    if (!e) return t.fail('no such endpoint');
    const problems: string[] = [];
    const cases = row.cases ?? ['-'];
    const jobs: Promise<void>[] = [];
    for (const role of ROLES) {
      for (const c of cases) {
        jobs.push(
          limited(async () => {
            const fromAuth = authOutcome(e.auth, role);
            const expected = fromAuth ?? row.expect(role, c);
            // Requests the auth layer refuses need no real object: the route's own path will do.
            const call = fromAuth ? { path: row.path.replace(/\{\w+\}/g, '1'), root: e.root } : await row.request(w, role, c);
            const creds = fromAuth ? w.creds(role) : await actorFor(row, role);
            const client = creds ? w.s.client.as(creds) : w.s.client;
            const res: Response = await client.request(row.method, call.path, call);
            const actual = observed(res);
            const label = `${role}${c === '-' ? '' : ` × ${c}`}`;
            if (!satisfies(actual, expected, !e.root && row.method !== 'HEAD')) problems.push(`${label}: expected ${describe(expected)}, got ${describe(actual)}`);
            const sent = JSON.stringify(call);
            for (const secret of forbidden(role)) {
              if (!sent.includes(secret) && res.text.includes(secret)) problems.push(`${label}: reply leaks ${JSON.stringify(secret)}`);
            }
          }),
        );
      }
    }
    await Promise.all(jobs);
    t.deepEqual(problems, []);
  });
}
