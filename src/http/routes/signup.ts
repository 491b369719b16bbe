// The sign-up page a reusable invitation link or an email invitation opens: pick a name and password, join with the
// invited role, channels and groups (an email invitation fixes the address). Expired, revoked, used or unknown links
// show a page that says so.
import { hashPassword } from '../../auth/secrets.js';
import { escapeHtml } from '../../markdown/escape.js';
import type { MultiuseInvite } from '../../persistence/repos/invites.js';
import type { EmailInvite } from '../../persistence/repos/email-invites.js';
import { inviteState } from '../../realm/people/invites.js';
import { checkNewAccount, type CreatedUser } from '../../realm/people/users.commands.js';
import type { RealmState } from '../../realm/state.js';
import { endpoint, RawReply, type RequestContext } from '../endpoint.js';
import { ApiError } from '../errors.js';
import { page } from '../pages.js';
import { optional, required, str } from '../params.js';

const ROLE_NAMES: Record<number, string> = { 100: 'Owner', 200: 'Administrator', 300: 'Moderator', 400: 'Member', 600: 'Guest' };

type Invite = MultiuseInvite | EmailInvite;
const UNUSABLE = {
  expired: 'This invitation link has expired.',
  revoked: 'This invitation link has been revoked.',
  used: 'This invitation has already been used. Log in with the account made with it.',
};

function linkProblem(invite: Invite | null): RawReply | null {
  if (!invite) return new RawReply(page('Invalid link', '<h1 class="error" id="link-error">This invitation link is not valid.</h1>', 404));
  const st = inviteState(invite);
  if (st === 'valid') return null;
  const text = UNUSABLE[st];
  return new RawReply(
    page('Invitation unavailable', `<h1 class="error" id="link-error">${text}</h1><p>Ask the person who invited you for a new link.</p>`, 410),
  );
}

/** The form; with `fixedEmail` (an email invitation) the address is shown, not editable. */
function form(state: RealmState, values: { email?: string; full_name?: string }, error?: string, fixedEmail?: string): string {
  const v = (s: string | undefined) => escapeHtml(s ?? '');
  const email = fixedEmail === undefined
    ? `<input id="email" name="email" type="email" required value="${v(values.email)}">`
    : `<input id="email" name="email" type="email" readonly value="${v(fixedEmail)}">`;
  return `<h1>Join ${escapeHtml(state.realm.name)}</h1>
${error ? `<p class="error" id="form-error">${escapeHtml(error)}</p>` : ''}
<form method="post">
<label for="email">Email address</label>${email}
<label for="full_name">Full name</label><input id="full_name" name="full_name" required value="${v(values.full_name)}">
<label for="password">Password</label><input id="password" name="password" type="password" required>
<button type="submit" id="submit">Sign up</button>
</form>`;
}

/** A reusable link's key, else an email invitation's (both are 24 random characters, mailed or shared as /join/{key}/). */
async function findInvite(ctx: RequestContext, key: string): Promise<Invite | null> {
  const realmId = ctx.realm.state.realm.id;
  return (await ctx.services.db.invites.byKey(realmId, key)) ?? (await ctx.services.db.emailInvites.byKey(realmId, key));
}

const fixedEmail = (invite: Invite) => ('email' in invite ? invite.email : undefined);

export const signupPage = endpoint({
  method: 'GET',
  path: '/join/{key}',
  root: true,
  errorFormat: 'html',
  auth: 'none',
  params: { key: required(str({ maxLength: 100 })) },
  async handle(ctx, p) {
    const invite = await findInvite(ctx, p.key);
    return linkProblem(invite) ?? new RawReply(page('Sign up', form(ctx.realm.state, {}, undefined, fixedEmail(invite!))));
  },
});

export const signupSubmit = endpoint({
  method: 'POST',
  path: '/join/{key}',
  root: true,
  errorFormat: 'html',
  auth: 'none',
  params: {
    key: required(str({ maxLength: 100 })),
    email: optional(str({ maxLength: 254 })),
    full_name: optional(str({ maxLength: 1000 })),
    password: optional(str({ maxLength: 1024 })),
  },
  async handle(ctx, p) {
    const state = ctx.realm.state;
    const invite = await findInvite(ctx, p.key);
    const problem = linkProblem(invite);
    if (problem || !invite) return problem!;
    const email = fixedEmail(invite) ?? p.email ?? '';
    const retry = (msg: string) => new RawReply(page('Sign up', form(state, p, msg, fixedEmail(invite)), 400));
    if (!p.password) return retry('Please choose a password.');
    let created: CreatedUser;
    try {
      checkNewAccount(state, email, p.full_name ?? '');
      const passwordHash = await hashPassword(p.password, ctx.services.config.passwordHashCost);
      created = await ctx.realm.dispatch<CreatedUser>('users.create', {
        email,
        fullName: p.full_name ?? '',
        passwordHash,
        role: invite.invitedAs,
        groupIds: invite.groupIds,
        streamIds: invite.streamIds,
        defaultChannels: invite.includeRealmDefaultSubscriptions,
        ...('email' in invite ? { emailInviteId: invite.id } : { inviteId: invite.id }),
      });
    } catch (err) {
      if (err instanceof ApiError && err.status === 400) return retry(err.message);
      throw err;
    }
    const after = ctx.realm.state;
    const channels = (created.subscriptions?.rows ?? []).map((s) => after.channels.byId.get(s.channelId)?.name ?? '').sort();
    const groups = created.groupIds.map((g) => after.groupsById.get(g)?.name ?? '').sort();
    const list = (id: string, items: string[]) =>
      `<ul id="${id}">${items.map((i) => `<li>${escapeHtml(i)}</li>`).join('')}</ul>`;
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

export const signupEndpoints = [signupPage, signupSubmit];
