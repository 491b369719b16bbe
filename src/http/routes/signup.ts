// The sign-up page a reusable invitation link opens: pick a name and password, join with the invited role,
// channels and groups. Expired, revoked or unknown links show a page that says so.
import { hashPassword } from '../../auth/secrets.js';
import { escapeHtml } from '../../markdown/escape.js';
import type { MultiuseInvite } from '../../persistence/repos/invites.js';
import { inviteState } from '../../realm/people/invites.js';
import { checkNewAccount, type CreatedUser } from '../../realm/people/users.commands.js';
import type { RealmState } from '../../realm/state.js';
import { endpoint, RawReply, type RequestContext } from '../endpoint.js';
import { ApiError } from '../errors.js';
import { page } from '../pages.js';
import { optional, required, str } from '../params.js';

const ROLE_NAMES: Record<number, string> = { 100: 'Owner', 200: 'Administrator', 300: 'Moderator', 400: 'Member', 600: 'Guest' };

function linkProblem(invite: MultiuseInvite | null): RawReply | null {
  if (!invite) return new RawReply(page('Invalid link', '<h1 class="error" id="link-error">This invitation link is not valid.</h1>', 404));
  const st = inviteState(invite);
  if (st === 'valid') return null;
  const text = st === 'expired' ? 'This invitation link has expired.' : 'This invitation link has been revoked.';
  return new RawReply(
    page('Invitation unavailable', `<h1 class="error" id="link-error">${text}</h1><p>Ask the person who invited you for a new link.</p>`, 410),
  );
}

function form(state: RealmState, values: { email?: string; full_name?: string }, error?: string): string {
  const v = (s: string | undefined) => escapeHtml(s ?? '');
  return `<h1>Join ${escapeHtml(state.realm.name)}</h1>
${error ? `<p class="error" id="form-error">${escapeHtml(error)}</p>` : ''}
<form method="post">
<label for="email">Email address</label><input id="email" name="email" type="email" required value="${v(values.email)}">
<label for="full_name">Full name</label><input id="full_name" name="full_name" required value="${v(values.full_name)}">
<label for="password">Password</label><input id="password" name="password" type="password" required>
<button type="submit" id="submit">Sign up</button>
</form>`;
}

async function findInvite(ctx: RequestContext, key: string): Promise<MultiuseInvite | null> {
  return ctx.services.db.invites.byKey(ctx.realm.state.realm.id, key);
}

export const signupPage = endpoint({
  method: 'GET',
  path: '/join/{key}',
  root: true,
  errorFormat: 'html',
  auth: 'none',
  secretPath: true,
  params: { key: required(str({ maxLength: 100 })) },
  async handle(ctx, p) {
    const invite = await findInvite(ctx, p.key);
    return linkProblem(invite) ?? new RawReply(page('Sign up', form(ctx.realm.state, {})));
  },
});

export const signupSubmit = endpoint({
  method: 'POST',
  path: '/join/{key}',
  root: true,
  errorFormat: 'html',
  auth: 'none',
  secretPath: true,
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
    const retry = (msg: string) => new RawReply(page('Sign up', form(state, p, msg), 400));
    if (!p.password) return retry('Please choose a password.');
    let created: CreatedUser;
    try {
      checkNewAccount(state, p.email ?? '', p.full_name ?? '');
      const passwordHash = await hashPassword(p.password, ctx.services.config.passwordHashCost);
      created = await ctx.realm.dispatch<CreatedUser>('users.create', {
        email: p.email ?? '',
        fullName: p.full_name ?? '',
        passwordHash,
        role: invite.invitedAs,
        groupIds: invite.groupIds,
        streamIds: invite.streamIds,
        defaultChannels: invite.includeRealmDefaultSubscriptions,
        inviteId: invite.id,
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
