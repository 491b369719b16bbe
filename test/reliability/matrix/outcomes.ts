// Expected outcomes of the permission matrix: "allowed", or an exact error (HTTP status, code, msg), and the
// rules of channel visibility they follow.
import type { ActiveRole, RoleName, Visibility } from './world.js';

export interface Denied {
  status: number;
  code?: string;
  /** The exact text, or a pattern where it carries an ID. */
  msg?: string | RegExp;
}
export type Outcome = 'ok' | Denied;

export const OK = 'ok' as const;
export const err = (status: number, code: string | undefined, msg?: string | RegExp): Denied => ({ status, code, msg });
export const bad = (msg: string | RegExp): Denied => err(400, 'BAD_REQUEST', msg);

export const INVALID_CHANNEL = bad('Invalid channel ID');
export const INVALID_MESSAGE = bad('Invalid message(s)');
export const MUST_BE_ADMIN = err(400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator');
export const INSUFFICIENT = bad('Insufficient permission');
export const NOT_FOR_GUESTS = bad('Not allowed for guest users');
export const NOT_FOR_BOTS = bad('This endpoint does not accept bot requests.');
export const NOT_LOGGED_IN = err(401, 'UNAUTHORIZED', 'Not logged in: API authentication or user session required');
export const DEACTIVATED = err(401, 'USER_DEACTIVATED', 'Account is deactivated');
export const INVALID_API_KEY = err(401, 'INVALID_API_KEY', 'Invalid API key');
export const FILE_NOT_FOUND = err(404, 'NOT_FOUND', 'File not found');
export const NOT_FOUND = err(404, 'NOT_FOUND');
export const OPERATOR_TOKEN = err(401, 'UNAUTHORIZED', 'This endpoint requires the operator token (Authorization: Bearer).');
export const PUSH_NOT_CONFIGURED = err(400, 'PUSH_SERVICE_NOT_CONFIGURED', 'Server is not configured to use push notification service.');
export const ARCHIVED = bad('Channel is archived.');

export const ADMINS: readonly RoleName[] = ['owner', 'admin'];
export const isAdminRole = (r: RoleName) => ADMINS.includes(r);

/** One outcome for the listed roles, another for the rest. */
export function only(roles: readonly RoleName[], yes: Outcome, no: Outcome) {
  return (role: RoleName): Outcome => (roles.includes(role) ? yes : no);
}

/** Whether the role may know the channel (its settings, subscribers): Zulip's metadata access. */
export function metadataAccess(role: ActiveRole | 'spectator', vis: Visibility): boolean {
  switch (vis) {
    case 'webPublic':
      return true;
    case 'privSub':
      return role !== 'spectator';
    case 'privUnsub':
      return role === 'owner' || role === 'admin';
    case 'public':
    case 'archived':
      return role !== 'guest' && role !== 'spectator';
  }
}

/** Whether the role may read the channel's messages and topics: content access. */
export function contentAccess(role: ActiveRole | 'spectator', vis: Visibility): boolean {
  if (vis === 'privUnsub') return false;
  return metadataAccess(role, vis);
}

/** Actual reply → comparable outcome (pages and HEAD answers have no JSON envelope: status only). */
export function observed(r: { status: number; json: any }): Outcome {
  if (r.status >= 200 && r.status < 300) return OK;
  return { status: r.status, code: r.json?.code, msg: r.json?.msg };
}

export function describe(o: Outcome): string {
  return o === OK ? 'ok' : `${o.status} ${o.code ?? ''}${o.msg === undefined ? '' : ` "${String(o.msg)}"`}`;
}

/** Whether an observed outcome satisfies the expected one. `envelope`: the reply is the JSON error envelope,
 *  so code and msg must match too (pages and HEAD answers are compared by status). */
export function satisfies(actual: Outcome, expected: Outcome, envelope: boolean): boolean {
  if (expected === OK || actual === OK) return expected === actual;
  if (actual.status !== expected.status) return false;
  if (!envelope) return true;
  const msgOk =
    expected.msg === undefined ||
    (typeof expected.msg === 'string' ? actual.msg === expected.msg : typeof actual.msg === 'string' && expected.msg.test(actual.msg));
  return actual.code === expected.code && msgOk;
}
