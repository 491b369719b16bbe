// Email invitations (POST /invites): who may send them, how the addresses are checked (the reference's per-address
// reasons), the daily sending limit, and the send/revoke/resend commands; each mail goes through the outbox.
import { errors } from '../../errors.js';
import { invitationMail } from './mail-templates.js';
import type { Tx } from '../../persistence/db.js';
import type { EmailInvite, NewEmailInvite } from '../../model/people.js';
import { emailRefusal } from '../admin/domains.js';
import type { CommandDef } from '../commands.js';
import { isValidEmail } from '../provision.js';
import type { RealmState } from '../state.js';
import type { Role } from '../../model/realm.js';
import { actor, isAdmin, requireMemberOrAdmin } from '../access/roles.js';
import { checkInviteTargets, confirmationLink, invitesChanged, plannedInvite, requireInviteManager } from './invites.js';

/** The raw invitee_emails parameter, in characters (about a thousand addresses). */
export const INVITEE_EMAILS_MAX_CHARS = 64 * 1024;
const DAY_SECONDS = 24 * 3600;
const PLUS_REFUSAL = 'Email addresses containing + are not allowed.';

/** [email, reason, is_deactivated]: the reference's per-address error triple. */
export type InviteFailure = [string, string, boolean];

/**
 * The reference's get_invitee_emails_set: addresses separated by commas or newlines, `Name <address>` reduced to the
 * address, trimmed, without repeats. Empty entries (a trailing comma) are dropped.
 */
export function parseInviteeEmails(raw: string): string[] {
  const out = new Set<string>();
  for (const part of raw.split(/[,\n]/)) {
    // The reference's greedy <(.*)>, found without backtracking: from the first '<' to the last '>' after it.
    const lt = part.indexOf('<');
    const gt = part.lastIndexOf('>');
    const email = (lt !== -1 && gt > lt ? part.slice(lt + 1, gt) : part).trim();
    if (email !== '') out.add(email);
  }
  return [...out];
}

/** The sending limit: more than `max` invitations mailed in a day are refused, none sent. */
function dailyLimitReached(): Error {
  return errors.invitationFailed(
    'To protect users, Palaver limits the number of invitations you can send in one day. Because you have reached the limit, no invitations were sent.',
    [],
    { sent: false, dailyLimit: true },
  );
}

/** Refuses when `adding` more mails would pass the day's limit, else records them. */
async function countSends(t: Tx, realmId: number, now: number, adding: number, max: number): Promise<void> {
  if ((await t.emailInvites.sentSince(realmId, now - DAY_SECONDS)) + adding > max) throw dailyLimitReached();
  await t.emailInvites.recordSends(realmId, adding, now - DAY_SECONDS);
}

function mailFor(state: RealmState, invite: EmailInvite, realmUrl: string, now: number) {
  const referrer = state.usersById.get(invite.referredBy)!;
  return invitationMail({
    to: invite.email,
    realmName: state.realm.name,
    referrer,
    link: confirmationLink(realmUrl, invite.key),
    expiresInMinutes: invite.expiresAt === null ? null : Math.max(0, Math.ceil((invite.expiresAt - now) / 60)),
  });
}

export interface SendInvitesInput {
  actorId: number;
  emails: string[];
  invitedAs: Role;
  /** Minutes; null never expires. */
  expiresInMinutes: number | null;
  channelIds: number[];
  groupIds: number[];
  includeRealmDefaultSubscriptions: boolean;
  notifyReferrerOnJoin: boolean;
  welcomeMessageCustomText: string | null;
  realmUrl: string;
  /** Invitations the realm may mail in a day. */
  dailyMax: number;
  /** Seconds. */
  now: number;
}

interface SendPlan {
  invites: NewEmailInvite[];
  /** Addresses that already have an account (active or deactivated): not invited, reported. */
  skipped: InviteFailure[];
  input: SendInvitesInput;
}

export interface SentInvites {
  invites: EmailInvite[];
  skipped: InviteFailure[];
}

/** The reference's validate_email_is_valid and get_existing_user_errors for one address. */
function addressProblem(state: RealmState, email: string): { reason: string; existing: boolean; deactivated: boolean } | null {
  if (!isValidEmail(email)) return { reason: 'Invalid address.', existing: false, deactivated: false };
  const refusal = emailRefusal(state, email);
  if (refusal) return { reason: refusal === PLUS_REFUSAL ? refusal : 'Outside your domain.', existing: false, deactivated: false };
  const user = state.userByEmail(email);
  if (!user) return null;
  return user.isActive
    ? { reason: 'Already has an account.', existing: true, deactivated: false }
    : { reason: 'Account has been deactivated.', existing: true, deactivated: true };
}

const send: CommandDef<SendInvitesInput, SendPlan, SentInvites> = {
  check(state, input) {
    const caller = actor(state, input.actorId);
    requireMemberOrAdmin(caller);
    if (!state.userHasRealmPermission(caller.id, 'can_invite_users_group')) throw errors.insufficientPermission();
    const { channelIds, groupIds } = checkInviteTargets(state, caller, input);
    if (input.emails.length === 0) throw errors.noInviteeEmails();
    if (input.emails.length > input.dailyMax) throw dailyLimitReached();
    const invalid: InviteFailure[] = [];
    const skipped: InviteFailure[] = [];
    const good: string[] = [];
    for (const email of input.emails) {
      const problem = addressProblem(state, email);
      if (!problem) good.push(email);
      else (problem.existing ? skipped : invalid).push([email, problem.reason, problem.deactivated]);
    }
    if (invalid.length) {
      throw errors.invitationFailed("Some emails did not validate, so we didn't send any invitations.", [...invalid, ...skipped], {
        sent: false,
      });
    }
    if (good.length === 0) throw errors.invitationFailed("We weren't able to invite anyone.", skipped, { sent: false });
    const targets = { channelIds, groupIds };
    const invites = good.map((email) => ({ ...plannedInvite(state, caller, input, targets), email, notifyReferrerOnJoin: input.notifyReferrerOnJoin }));
    return { invites, skipped, input };
  },
  async write(t, plan, state) {
    const { input } = plan;
    await countSends(t, state.realm.id, input.now, plan.invites.length, input.dailyMax);
    const invites: EmailInvite[] = [];
    for (const i of plan.invites) {
      const invite = await t.emailInvites.insert(i);
      await t.outbox.enqueue({ realmId: state.realm.id, ...mailFor(state, invite, input.realmUrl, input.now) });
      invites.push(invite);
    }
    return { invites, skipped: plan.skipped };
  },
  events: (state, sent) => invitesChanged(state, sent.invites),
};

interface ManageInput {
  actorId: number;
  invite: EmailInvite;
}

/** An invitation that can still be revoked or resent: active and not expired; any other is "No such invitation". */
function manageable(state: RealmState, { actorId, invite }: ManageInput, now: number): EmailInvite {
  const caller = actor(state, actorId);
  requireMemberOrAdmin(caller);
  if (invite.status !== 'active' || (invite.expiresAt !== null && invite.expiresAt <= now)) throw errors.noSuchInvitation();
  requireInviteManager(caller, invite);
  return invite;
}

const revoke: CommandDef<ManageInput, EmailInvite, EmailInvite> = {
  check: (state, input) => manageable(state, input, Math.floor(Date.now() / 1000)),
  async write(t, invite) {
    await t.emailInvites.setStatus(invite.id, 'revoked');
    return invite;
  },
  events: invitesChanged,
};

interface ResendInput extends ManageInput {
  realmUrl: string;
  dailyMax: number;
  /** Seconds. */
  now: number;
}

/** Mails the invitation again (counted against the daily limit); its expiry stays as it was. */
const resend: CommandDef<ResendInput, ResendInput, EmailInvite> = {
  check: (state, input) => ({ ...input, invite: manageable(state, input, input.now) }),
  async write(t, { invite, realmUrl, dailyMax, now }, state) {
    await countSends(t, state.realm.id, now, 1, dailyMax);
    const invitedAt = await t.emailInvites.resent(invite.id);
    await t.outbox.enqueue({ realmId: state.realm.id, ...mailFor(state, invite, realmUrl, now) });
    return { ...invite, invitedAt };
  },
  events: invitesChanged,
};

export const emailInviteCommands = { 'invites.send': send, 'invites.revokeEmail': revoke, 'invites.resend': resend };
