// Sign-up through a reusable invitation link, confirming the email address as the reference does: the link's
// page asks for an email address and mails a confirmation link to it (through the outbox); following that link
// shows the form for a name and password, and only then is the account made, with the invited role, channels and
// groups. An email invitation's mailed link (POST /invites) is such a confirmation already: it opens the same form for
// its address. Expired, revoked or unknown links, used or expired confirmations and deactivated realms get pages
// that say so. The keys in these paths are secrets: the request log shows the routes instead (secretPath).
import { hashNewPassword } from '../../auth/password-policy.js';
import { signupConfirmation } from '../../realm/people/mail-templates.js';
import { escapeHtml } from '../../markdown/escape.js';
import type { MultiuseInvite } from '../../model/people.js';
import { confirmationLink, inviteState, newInviteKey } from '../../realm/people/invites.js';
import { checkNewAccount, checkNewEmail, type CreatedUser } from '../../realm/people/users.commands.js';
import type { RealmState } from '../../realm/state.js';
import { endpoint, RawReply, type RequestContext } from '../endpoint.js';
import { ApiError } from '../../errors.js';
import { page } from '../pages.js';
import { optional, required, str } from '../../params.js';
import { requestRealmUrl } from '../context.js';

const ROLE_NAMES: Record<number, string> = { 100: 'Owner', 200: 'Administrator', 300: 'Moderator', 400: 'Member', 600: 'Guest' };
/** The reference's CONFIRMATION_LINK_DEFAULT_VALIDITY_DAYS. */
const CONFIRMATION_VALID_HOURS = 24;

/** Pages people open, outside the API, without credentials; their keys are secrets kept out of the log. */
const SIGNUP_PAGE = { root: true, errorFormat: 'html', auth: 'none', secretPath: true } as const;

/** The sign-up form: the realm's heading, the error of the last try, `fields` and the submit button. */
function signupForm(state: RealmState, fields: string, submit: string, error?: string): string {
  return `<h1>Join ${escapeHtml(state.realm.name)}</h1>
${error ? `<p class="error" id="form-error">${escapeHtml(error)}</p>` : ''}
${fields}
<button type="submit" id="submit">${submit}</button>
</form>`;
}

const problemPage = (title: string, text: string, status: number, advice = '') =>
  new RawReply(page(title, `<h1 class="error" id="link-error">${text}</h1>${advice}`, status));

function realmProblem(state: RealmState): RawReply | null {
  return state.realm.deactivated ? problemPage('Organization deactivated', 'This organization has been deactivated.', 403) : null;
}

function linkProblem(state: RealmState, invite: MultiuseInvite | null): RawReply | null {
  const deactivated = realmProblem(state);
  if (deactivated) return deactivated;
  if (!invite) return problemPage('Invalid link', 'This invitation link is not valid.', 404);
  const st = inviteState(state, invite);
  if (st === 'valid') return null;
  const text = st === 'expired' ? 'This invitation link has expired.' : 'This invitation link has been revoked.';
  return problemPage('Invitation unavailable', text, 410, '<p>Ask the person who invited you for a new link.</p>');
}

async function findInvite(ctx: RequestContext, key: string): Promise<MultiuseInvite | null> {
  return ctx.services.db.invites.byKey(ctx.realm.state.realm.id, key);
}

function emailForm(state: RealmState, email: string, error?: string): string {
  const fields = `<form method="post">
<label for="email">Email address</label><input id="email" name="email" type="email" required value="${escapeHtml(email)}">`;
  return signupForm(state, fields, 'Sign up', error);
}

export const signupPage = endpoint({
  method: 'GET',
  path: '/join/{key}',
  ...SIGNUP_PAGE,
  params: { key: required(str({ maxLength: 100 })) },
  async handle(ctx, p) {
    const state = ctx.realm.state;
    return linkProblem(state, await findInvite(ctx, p.key)) ?? new RawReply(page('Sign up', emailForm(state, '')));
  },
});

/** The address given on the link's page: a confirmation link is mailed to it; nothing else happens yet. */
export const signupSubmit = endpoint({
  method: 'POST',
  path: '/join/{key}',
  ...SIGNUP_PAGE,
  params: { key: required(str({ maxLength: 100 })), email: optional(str({ maxLength: 254 })) },
  async handle(ctx, p) {
    const state = ctx.realm.state;
    const invite = await findInvite(ctx, p.key);
    const problem = linkProblem(state, invite);
    if (problem || !invite) return problem!;
    let email: string;
    try {
      email = checkNewEmail(state, p.email ?? '');
    } catch (err) {
      if (err instanceof ApiError && err.status === 400) return new RawReply(page('Sign up', emailForm(state, p.email ?? '', err.message), 400));
      throw err;
    }
    ctx.services.rateLimiter.confirmationMail(email);
    const key = newInviteKey();
    const url = confirmationLink(requestRealmUrl(ctx), key);
    await ctx.services.db.tx(async (t) => {
      await t.invites.insertConfirmation({
        realmId: state.realm.id,
        key,
        email,
        inviteId: invite.id,
        expiresAt: Math.floor(Date.now() / 1000) + CONFIRMATION_VALID_HOURS * 3600,
      });
      await t.outbox.enqueue({ realmId: state.realm.id, ...signupConfirmation(state.realm.name, email, url, CONFIRMATION_VALID_HOURS) });
    });
    return new RawReply(
      page(
        'Confirm your email address',
        `<h1 id="confirm-sent">Confirm your email address</h1>
<p>We sent an email to <strong id="email">${escapeHtml(email)}</strong>. Follow the link in it to finish signing up.</p>`,
      ),
    );
  },
});

/** What a confirmed sign-up joins with: the address, and the invitation's role, channels and groups. */
interface Confirmed {
  email: string;
  invite: Pick<MultiuseInvite, 'invitedAs' | 'groupIds' | 'channelIds' | 'includeRealmDefaultSubscriptions'>;
  /** Used up by users.create: the confirmation of a link's sign-up, or the email invitation. */
  use: { inviteId: number; confirmationId: number } | { emailInviteId: number };
}

/** An email invitation's link: usable while the invitation is (not used, revoked or expired). */
async function findEmailInvite(ctx: RequestContext, key: string): Promise<Confirmed | RawReply> {
  const state = ctx.realm.state;
  const invite = await ctx.services.db.emailInvites.byKey(state.realm.id, key);
  if (!invite) return problemPage('Invalid link', 'This confirmation link is not valid.', 404);
  const st = inviteState(state, invite);
  if (st === 'used') return problemPage('Link used', 'This invitation has already been used. Log in with the account made with it.', 410);
  if (st !== 'valid') {
    const text = st === 'expired' ? 'This invitation has expired.' : 'This invitation has been revoked.';
    return problemPage('Invitation unavailable', text, 410, '<p>Ask the person who invited you for a new invitation.</p>');
  }
  return { email: invite.email, invite, use: { emailInviteId: invite.id } };
}

/** The confirmation behind a key, with the invitation it came through, or the page saying why it cannot be used. */
async function findConfirmation(ctx: RequestContext, key: string): Promise<Confirmed | RawReply> {
  const state = ctx.realm.state;
  const deactivated = realmProblem(state);
  if (deactivated) return deactivated;
  const confirmation = await ctx.services.db.invites.confirmationByKey(state.realm.id, key);
  if (!confirmation) return findEmailInvite(ctx, key);
  if (confirmation.used) return problemPage('Link used', 'This confirmation link has already been used.', 410);
  if (confirmation.expiresAt <= Math.floor(Date.now() / 1000)) {
    return problemPage('Link expired', 'This confirmation link has expired.', 410, '<p>Use the invitation link again for a new one.</p>');
  }
  const invite = await ctx.services.db.invites.byId(state.realm.id, confirmation.inviteId);
  return (
    linkProblem(state, invite) ?? {
      email: confirmation.email,
      invite: invite!,
      use: { inviteId: invite!.id, confirmationId: confirmation.id },
    }
  );
}

function accountForm(state: RealmState, email: string, fullName: string, error?: string): string {
  const fields = `<p>Email address: <strong id="email">${escapeHtml(email)}</strong></p>
<form method="post">
<label for="full_name">Full name</label><input id="full_name" name="full_name" required value="${escapeHtml(fullName)}">
<label for="password">Password</label><input id="password" name="password" type="password" required>`;
  return signupForm(state, fields, 'Create account', error);
}

export const confirmPage = endpoint({
  method: 'GET',
  path: '/accounts/do_confirm/{key}',
  ...SIGNUP_PAGE,
  params: { key: required(str({ maxLength: 100 })) },
  async handle(ctx, p) {
    const found = await findConfirmation(ctx, p.key);
    if (found instanceof RawReply) return found;
    return new RawReply(page('Sign up', accountForm(ctx.realm.state, found.email, '')));
  },
});

/** The confirmed address's account: made now, with the invited role, channels and groups. */
export const confirmSubmit = endpoint({
  method: 'POST',
  path: '/accounts/do_confirm/{key}',
  ...SIGNUP_PAGE,
  params: {
    key: required(str({ maxLength: 100 })),
    full_name: optional(str({ maxLength: 1000 })),
    password: optional(str({ maxLength: 1024 })),
  },
  async handle(ctx, p) {
    const found = await findConfirmation(ctx, p.key);
    if (found instanceof RawReply) return found;
    const { email, invite } = found;
    const state = ctx.realm.state;
    let created: CreatedUser;
    try {
      checkNewAccount(state, email, p.full_name ?? '');
      const passwordHash = await hashNewPassword(p.password ?? '', ctx.services.config.passwordHashCost);
      created = await ctx.realm.dispatch('users.create', {
        email,
        fullName: p.full_name ?? '',
        passwordHash,
        role: invite.invitedAs,
        groupIds: invite.groupIds,
        channelIds: invite.channelIds,
        defaultChannels: invite.includeRealmDefaultSubscriptions,
        ...found.use,
      });
    } catch (err) {
      if (err instanceof ApiError && err.status === 400) {
        return new RawReply(page('Sign up', accountForm(state, email, p.full_name ?? '', err.message), 400));
      }
      throw err;
    }
    const after = ctx.realm.state;
    const channels = (created.subscriptions?.rows ?? []).map((s) => after.channels.byId.get(s.channelId)?.name ?? '').sort();
    const groups = created.groupIds.map((g) => after.groupsById.get(g)?.name ?? '').sort();
    const list = (id: string, items: string[]) => `<ul id="${id}">${items.map((i) => `<li>${escapeHtml(i)}</li>`).join('')}</ul>`;
    return new RawReply(
      page(
        'Welcome',
        `<h1 id="welcome">Welcome to ${escapeHtml(after.realm.name)}, ${escapeHtml(created.user.fullName)}!</h1>
<p>You joined as <strong id="role">${ROLE_NAMES[created.user.role]}</strong> with the email address
<span id="email">${escapeHtml(created.user.email)}</span>. Log in with your email address and password.</p>
<h2>Channels</h2>${list('channels', channels)}<h2>Groups</h2>${list('groups', groups)}`,
      ),
    );
  },
});

export const signupEndpoints = [signupPage, signupSubmit, confirmPage, confirmSubmit];
