// The permission matrix's table: one row per endpoint of the route table, saying how to call it as each role
// (for each object case) and what each active role must get. Deactivated users, users of another realm and
// spectators are checked for every row from the endpoint's auth mode (see expectFor in the test).
import sharp from 'sharp';
import type { RequestOptions } from '../../helpers/http.js';
import { addUser } from '../../helpers/users.js';
import {
  ADMINS, ARCHIVED, FILE_NOT_FOUND, INVALID_CHANNEL, INVALID_MESSAGE, MUST_BE_ADMIN, NOT_FOR_BOTS, NOT_FOR_GUESTS, NOT_FOUND, NOT_LOGGED_IN, OK,
  INSUFFICIENT, OPERATOR_TOKEN, PUSH_NOT_CONFIGURED, bad, contentAccess, err, isAdminRole, metadataAccess, only, type Outcome,
} from './outcomes.js';
import { VISIBILITIES, type ActiveRole, type RoleName, type Visibility, type World } from './world.js';

export interface Call extends RequestOptions {
  path: string;
}

export interface Row {
  /** Tells apart several rows of one endpoint (in the test's title). */
  label?: string;
  method: string;
  /** As in the route table. */
  path: string;
  /** Object cases the row runs for (channel visibilities, own/others' object); one case when absent. */
  cases?: readonly string[];
  /** Builds the request (may create disposable objects first). */
  request(w: World, role: RoleName, c: string): Promise<Call> | Call;
  /** The expected outcome for an active role (and for every role on endpoints that do not authenticate). */
  expect(role: RoleName, c: string): Outcome;
  /** Rows with the same lock run one after another (they change one realm-wide list). */
  lock?: string;
  /** Acts as a disposable user of the role instead of the shared one (calls that would ruin the shared user). */
  disposableActor?: boolean;
}

const ALL_OK = () => OK;
const humansOnly = (r: RoleName) => (r === 'bot' ? NOT_FOR_BOTS : OK);
const vis = (c: string) => c as Visibility;
const active = (r: RoleName) => r as ActiveRole;
const TUS = { 'tus-resumable': '1.0.0' };
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('IHDR tiny image')]);
let n = 0;
const uniq = (p: string) => `${p}${++n}`;
const ids = (xs: number[]) => JSON.stringify(xs);
const json = (x: unknown) => JSON.stringify(x);

/** A channel of the given visibility made for one call: the keeper subscribed (and the whole cast for privSub). */
async function freshChannel(w: World, v: Visibility): Promise<number> {
  const cast = ['owner', 'admin', 'moderator', 'member', 'guest', 'bot'] as const;
  const subscribers = [w.users.keeper.id, ...(v === 'privSub' ? cast.map((r) => w.users[r].id) : [])];
  const extra: Record<string, string> = v === 'privSub' || v === 'privUnsub' ? { invite_only: 'true' } : v === 'webPublic' ? { is_web_public: 'true' } : {};
  const r = await w.s.client.as(w.users.owner).post('/channels/create', { form: { name: uniq(`fresh ${v} `), subscribers: ids(subscribers), ...extra } });
  if (r.status !== 200) throw new Error(`fresh channel: ${r.text}`);
  if (v === 'archived') await w.s.client.as(w.users.owner).delete(`/streams/${r.json.id}`);
  return r.json.id;
}

async function ok<T = any>(p: Promise<{ status: number; json: any; text: string }>): Promise<T> {
  const r = await p;
  if (r.status < 200 || r.status >= 300) throw new Error(`fixture request failed: ${r.status} ${r.text}`);
  return r.json as T;
}

const owner = (w: World) => w.s.client.as(w.users.owner);
const as = (w: World, role: RoleName) => w.client(role);

async function freshGroup(w: World): Promise<number> {
  const r = await ok(owner(w).post('/user_groups/create', { form: { name: uniq('group '), description: '', members: ids([w.users.keeper.id]) } }));
  return r.group_id;
}

/** The shared channel-visibility outcomes: allowed with access, else "Invalid channel ID". */
const byMetadata = (role: RoleName, c: string) => (metadataAccess(active(role), vis(c)) ? OK : INVALID_CHANNEL);
const byContent = (role: RoleName, c: string) => (contentAccess(active(role), vis(c)) ? OK : INVALID_CHANNEL);
const messageByContent = (role: RoleName, c: string) => (contentAccess(active(role), vis(c)) ? OK : INVALID_MESSAGE);
const adminsOnly = (no: Outcome = MUST_BE_ADMIN) => only(ADMINS, OK, no);
const MUST_BE_OWNER = err(400, 'UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner');
const ownersOnly = only(['owner'], OK, MUST_BE_OWNER);
/** A real image (icons and logos are decoded and resized). */
const LOGO = sharp({ create: { width: 40, height: 10, channels: 3, background: 'white' } }).png().toBuffer();
const pngFile = async () => new File([new Uint8Array(await LOGO)], 'logo.png', { type: 'image/png' });
let dayLogo: Promise<string> | undefined;
async function uploadDayLogo(w: World): Promise<string> {
  await ok(owner(w).post('/realm/logo', { multipart: { night: 'false', file: await pngFile() } }));
  const reg = await ok(owner(w).post('/register', { form: { event_types: '["realm"]' } }));
  return (reg.realm_logo_url as string).split('?')[0]!;
}
async function freshDomain(w: World): Promise<string> {
  const domain = `${uniq('d')}.example.org`;
  await ok(owner(w).post('/realm/domains', { form: { domain, allow_subdomains: 'false' } }));
  return domain;
}
/** Zulip's require_member_or_admin (every user-group endpoint): guests and bots are refused first. */
const membersOnly = (then: Outcome | ((r: RoleName) => Outcome)) => (r: RoleName): Outcome =>
  r === 'guest' ? NOT_FOR_GUESTS : r === 'bot' ? NOT_FOR_BOTS : typeof then === 'function' ? then(r) : then;
/** A bot the realm's owner created, for one call. */
async function ownersBot(w: World): Promise<number> {
  return (await ok(owner(w).post('/bots', { form: { full_name: uniq('Owned Bot '), short_name: uniq('owned') } }))).user_id;
}
/** access_bot_by_id: the owner (here the realm owner) and administrators; guests and bots are refused first. */
const botAdmins = membersOnly((r) => (isAdminRole(r) ? OK : INSUFFICIENT));
/** Sending (and scheduling) to a channel: a channel the sender may not know is "missing" (existence and name
 *  stay hidden); archived and private channels refuse by name; guests post only where subscribed or web-public. */
const canPost = (r: RoleName, c: string): Outcome => {
  const v = vis(c);
  if (!metadataAccess(active(r), v)) return err(400, 'STREAM_DOES_NOT_EXIST', /^Channel with ID '\d+' does not exist$/);
  if (v === 'archived' || v === 'privUnsub') return bad(`Not authorized to send to channel '${v} room'`);
  return OK;
};

async function freshField(w: World): Promise<number> {
  return (await ok(owner(w).post('/realm/profile_fields', { form: { name: uniq('Field '), field_type: '1' } }))).id;
}

/** POST adds a token; DELETE removes one the caller added first (bots are refused either way). */
function legacyPushRows(path: string, extra: Record<string, string>): Row[] {
  const humans = (r: RoleName) => (r === 'bot' ? NOT_FOR_BOTS : OK);
  // Base64 of something unique: a valid APNs token too.
  const token = () => Buffer.from(uniq('device token ')).toString('base64');
  return [
    { method: 'POST', path, request: () => ({ path, form: { token: token(), ...extra } }), expect: humans },
    {
      method: 'DELETE', path,
      request: async (w, r) => {
        const t = token();
        await as(w, r).post(path, { form: { token: t, ...extra } });
        return { path, form: { token: t } };
      },
      expect: humans,
    },
  ];
}

const navRows: Row[] = [];
for (let segments = 1; segments <= 8; segments++) {
  const suffix = Array.from({ length: segments }, (_, i) => (i === 0 ? '{fragment}' : `{fragment_${i}}`)).join('/');
  const make = async (w: World, role: RoleName) => {
    const fragment = Array.from({ length: segments }, (_, i) => (i === 0 ? uniq('view') : `part${i}`)).join('/');
    await ok(as(w, role).post('/navigation_views', { form: { fragment, is_pinned: 'true', name: uniq('View ') } }));
    return fragment;
  };
  navRows.push(
    { method: 'PATCH', path: `/navigation_views/${suffix}`, request: async (w, r) => ({ path: `/navigation_views/${await make(w, r)}`, form: { is_pinned: 'false' } }), expect: ALL_OK },
    { method: 'DELETE', path: `/navigation_views/${suffix}`, request: async (w, r) => ({ path: `/navigation_views/${await make(w, r)}` }), expect: ALL_OK },
  );
}

/** Subscribing oneself to a fresh channel of each visibility: POST (its `subscriptions`) and PATCH (its `add`). */
const subscribeSelfRow = (method: string, field: string): Row => ({
  method, path: '/users/me/subscriptions', cases: VISIBILITIES,
  request: async (w, _r, c) => {
    const id = await freshChannel(w, vis(c));
    const ch = await ok(owner(w).get(`/streams/${id}`));
    return { path: '/users/me/subscriptions', form: { [field]: json([{ name: ch.stream.name }]) } };
  },
  expect: (r, c) => (c === 'privSub' || c === 'webPublic' || (c !== 'privUnsub' && r !== 'guest') ? OK : bad(/^Unable to access channel \(fresh \w+ \d+\)\.$/)),
});

export const rows: Row[] = [
  // Server and authentication.
  { method: 'GET', path: '/server_settings', request: () => ({ path: '/server_settings' }), expect: ALL_OK },
  { method: 'GET', path: '/static/generated/emoji/emoji_api.json', request: () => ({ path: '/static/generated/emoji/emoji_api.json', root: true }), expect: ALL_OK },
  {
    method: 'GET', path: '/calls/bigbluebutton/create',
    request: () => ({ path: '/calls/bigbluebutton/create', query: { meeting_name: 'standup' } }),
    expect: () => err(400, 'BAD_REQUEST', 'BigBlueButton is not configured.'),
  },
  {
    method: 'POST', path: '/fetch_api_key',
    request: (w) => ({ path: '/fetch_api_key', form: { username: w.users.owner.email, password: w.s.config.ownerPassword! } }),
    expect: ALL_OK,
  },

  // People.
  { method: 'GET', path: '/users/me', request: () => ({ path: '/users/me' }), expect: ALL_OK },
  { method: 'DELETE', path: '/users/me', disposableActor: true, request: () => ({ path: '/users/me' }), expect: ALL_OK },
  { method: 'GET', path: '/users', request: () => ({ path: '/users' }), expect: ALL_OK },
  {
    method: 'POST', path: '/users',
    request: () => ({ path: '/users', form: { email: `${uniq('new')}@test.example`, password: 'a-long-password-1', full_name: 'New Person' } }),
    // The first owner may create users (can_create_users); other administrators may not by default.
    expect: (r) => (r === 'owner' ? OK : r === 'admin' ? bad('User not authorized to create users') : MUST_BE_ADMIN),
  },
  { method: 'GET', path: '/users/{user_id}', request: (w) => ({ path: `/users/${w.users.keeper.id}` }), expect: ALL_OK },
  {
    method: 'PATCH', path: '/users/{user_id}',
    request: async (w) => ({ path: `/users/${(await addUser(w.s, { fullName: 'Target' })).id}`, form: { full_name: 'Renamed Target' } }),
    expect: adminsOnly(),
  },
  {
    method: 'DELETE', path: '/users/{user_id}',
    request: async (w) => ({ path: `/users/${(await addUser(w.s, { fullName: 'Target' })).id}` }),
    expect: adminsOnly(),
  },
  {
    method: 'POST', path: '/users/{user_id}/reactivate',
    request: async (w) => {
      const u = await addUser(w.s, { fullName: 'Target' });
      await ok(owner(w).delete(`/users/${u.id}`));
      return { path: `/users/${u.id}/reactivate` };
    },
    expect: adminsOnly(),
  },

  // Bots: members may create them (can_create_bots_group); a bot is administered by its owner and administrators.
  {
    method: 'POST', path: '/bots',
    request: () => ({ path: '/bots', form: { full_name: uniq('Matrix Bot '), short_name: uniq('matrix') } }),
    expect: membersOnly(OK),
  },
  { method: 'GET', path: '/bots', request: () => ({ path: '/bots' }), expect: membersOnly(OK) },
  {
    method: 'PATCH', path: '/bots/{bot_id}',
    request: async (w) => ({ path: `/bots/${await ownersBot(w)}`, form: { full_name: uniq('Renamed Bot ') } }),
    expect: botAdmins,
  },
  {
    method: 'DELETE', path: '/bots/{bot_id}',
    request: async (w) => ({ path: `/bots/${await ownersBot(w)}` }),
    expect: botAdmins,
  },
  {
    method: 'POST', path: '/bots/{bot_id}/api_key/regenerate',
    request: async (w) => ({ path: `/bots/${await ownersBot(w)}/api_key/regenerate` }),
    expect: botAdmins,
  },
  {
    method: 'POST', path: '/users/me/api_key/regenerate', disposableActor: true,
    request: () => ({ path: '/users/me/api_key/regenerate' }),
    expect: humansOnly,
  },

  // User groups.
  {
    method: 'GET', path: '/user_groups', request: () => ({ path: '/user_groups' }),
    expect: membersOnly(OK),
  },
  {
    method: 'POST', path: '/user_groups/create',
    request: (w) => ({ path: '/user_groups/create', form: { name: uniq('made by '), description: '', members: ids([w.users.keeper.id]) } }),
    expect: membersOnly(OK),
  },
  {
    method: 'PATCH', path: '/user_groups/{user_group_id}',
    request: async (w) => ({ path: `/user_groups/${await freshGroup(w)}`, form: { description: 'changed' } }),
    expect: membersOnly(only(['owner'], OK, INSUFFICIENT)),
  },
  {
    method: 'POST', path: '/user_groups/{user_group_id}/members',
    request: async (w) => ({ path: `/user_groups/${await freshGroup(w)}/members`, form: { add: ids([w.users.member.id]) } }),
    expect: membersOnly(only(['owner'], OK, INSUFFICIENT)),
  },
  {
    method: 'GET', path: '/user_groups/{user_group_id}/members',
    request: async (w) => ({ path: `/user_groups/${await freshGroup(w)}/members` }),
    expect: membersOnly(OK),
  },
  {
    method: 'GET', path: '/user_groups/{user_group_id}/members/{user_id}',
    request: async (w) => ({ path: `/user_groups/${await freshGroup(w)}/members/${w.users.keeper.id}` }),
    expect: membersOnly(OK),
  },
  {
    method: 'POST', path: '/user_groups/{user_group_id}/subgroups',
    request: async (w) => ({ path: `/user_groups/${await freshGroup(w)}/subgroups`, form: { add: ids([await freshGroup(w)]) } }),
    expect: membersOnly(only(['owner'], OK, INSUFFICIENT)),
  },
  {
    method: 'GET', path: '/user_groups/{user_group_id}/subgroups',
    request: async (w) => ({ path: `/user_groups/${await freshGroup(w)}/subgroups` }),
    expect: membersOnly(OK),
  },
  {
    method: 'POST', path: '/user_groups/{user_group_id}/deactivate',
    request: async (w) => ({ path: `/user_groups/${await freshGroup(w)}/deactivate` }),
    expect: membersOnly(only(['owner'], OK, INSUFFICIENT)),
  },

  // Status and presence.
  { method: 'POST', path: '/users/me/status', request: () => ({ path: '/users/me/status', form: { status_text: 'busy' } }), expect: ALL_OK },
  { method: 'POST', path: '/users/{user_id}/status', request: (w) => ({ path: `/users/${w.users.keeper.id}/status`, form: { status_text: 'set by admin' } }), expect: adminsOnly(INSUFFICIENT) },
  { method: 'GET', path: '/users/{user_id}/status', request: (w) => ({ path: `/users/${w.users.keeper.id}/status` }), expect: ALL_OK },
  // Zulip's human_users_only: bots have no presence and no personal settings.
  { method: 'POST', path: '/users/me/presence', request: () => ({ path: '/users/me/presence', form: { status: 'active' } }), expect: humansOnly },
  { method: 'GET', path: '/users/{user_id}/presence', request: (w) => ({ path: `/users/${w.users.keeper.id}/presence` }), expect: ALL_OK },
  { method: 'GET', path: '/realm/presence', request: () => ({ path: '/realm/presence' }), expect: ALL_OK },

  // Files.
  { method: 'POST', path: '/user_uploads', request: () => ({ path: '/user_uploads', multipart: { file: new File(['hello'], 'hello.txt') } }), expect: ALL_OK },
  {
    method: 'GET', path: '/user_uploads/{realm_id}/{bucket}/{random}/{name}', cases: VISIBILITIES,
    request: (w, _r, c) => ({ path: w.channels[vis(c)].uploadUrl, root: true }),
    expect: (r, c) => (contentAccess(active(r), vis(c)) ? OK : FILE_NOT_FOUND),
  },
  {
    method: 'GET', path: '/user_uploads/thumbnail/{realm_id}/{bucket}/{random}/{name}/{format}', cases: VISIBILITIES,
    request: (w, _r, c) => ({ path: `${w.channels[vis(c)].uploadUrl.replace('/user_uploads/', '/user_uploads/thumbnail/')}/840x560.webp`, root: true }),
    expect: (r, c) => (contentAccess(active(r), vis(c)) ? OK : FILE_NOT_FOUND),
  },
  {
    method: 'GET', path: '/external_content/{digest}/{url}',
    request: () => ({ path: `/external_content/${'0'.repeat(40)}/${Buffer.from('http://example.com/a.png').toString('hex')}`, root: true }),
    expect: () => err(403, 'BAD_REQUEST', 'Bad signature'),
  },
  { method: 'GET', path: '/attachments', request: () => ({ path: '/attachments' }), expect: ALL_OK },
  {
    method: 'DELETE', path: '/attachments/{attachment_id}', cases: ['own', 'others'],
    request: async (w, r, c) => {
      const up = await ok((c === 'own' ? as(w, r) : w.s.client.as(w.users.keeper)).post('/user_uploads', { multipart: { file: new File(['x'], uniq('del') + '.txt') } }));
      const mine = await ok((c === 'own' ? as(w, r) : w.s.client.as(w.users.keeper)).get('/attachments'));
      const att = mine.attachments.find((a: { path_id: string }) => up.url.endsWith(a.path_id));
      return { path: `/attachments/${att.id}` };
    },
    expect: (_r, c) => (c === 'own' ? OK : bad('Invalid attachment')),
  },
  { method: 'OPTIONS', path: '/tus', request: () => ({ path: '/tus' }), expect: ALL_OK },
  { method: 'POST', path: '/tus', request: () => ({ path: '/tus', headers: { ...TUS, 'upload-length': '5' } }), expect: ALL_OK },
  ...(['HEAD', 'PATCH', 'DELETE'] as const).map((method): Row => ({
    method, path: '/tus/{upload_id}', cases: ['own', 'others'],
    request: async (w, r, c) => {
      const creator = c === 'own' ? as(w, r) : w.s.client.as(w.users.keeper);
      const made = await creator.post('/tus', { headers: { ...TUS, 'upload-length': '5' } });
      if (made.status !== 201) throw new Error(`tus create: ${made.status} ${made.text}`);
      const location = made.headers.location as string;
      const headers: Record<string, string> = method === 'PATCH' ? { ...TUS, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' } : TUS;
      return { path: location, headers, ...(method === 'PATCH' ? { body: 'hello' } : {}) };
    },
    expect: (_r, c) => (c === 'own' ? OK : NOT_FOUND),
  })),

  // Custom emoji.
  { method: 'GET', path: '/realm/emoji', request: () => ({ path: '/realm/emoji' }), expect: ALL_OK },
  {
    method: 'POST', path: '/realm/emoji/{emoji_name}',
    request: () => ({ path: `/realm/emoji/${uniq('emoji_')}`, multipart: { file: new File([new Uint8Array(PNG)], 'e.png', { type: 'image/png' }) } }),
    expect: (r) => (r === 'guest' ? INSUFFICIENT : OK),
  },
  {
    method: 'DELETE', path: '/realm/emoji/{emoji_name}',
    request: async (w) => {
      const name = uniq('owners_emoji_');
      await ok(owner(w).post(`/realm/emoji/${name}`, { multipart: { file: new File([new Uint8Array(PNG)], 'e.png', { type: 'image/png' }) } }));
      return { path: `/realm/emoji/${name}` };
    },
    expect: adminsOnly(bad('Must be an organization administrator or emoji author')),
  },
  {
    method: 'GET', path: '/user_avatars/{realm_id}/emoji/images/{file_name}',
    request: async (w) => {
      const emoji = await ok(owner(w).get('/realm/emoji'));
      const first = Object.values(emoji.emoji as Record<string, { source_url: string }>)[0]!;
      return { path: first.source_url, root: true };
    },
    expect: ALL_OK,
  },

  // Settings.
  { method: 'PATCH', path: '/settings', request: () => ({ path: '/settings', form: { enter_sends: 'true' } }), expect: humansOnly },
  { method: 'PATCH', path: '/realm/user_settings_defaults', request: () => ({ path: '/realm/user_settings_defaults', form: { enter_sends: 'true' } }), expect: adminsOnly() },

  // Invitations.
  { method: 'POST', path: '/invites/multiuse', request: () => ({ path: '/invites/multiuse', form: {} }), expect: adminsOnly(bad('Insufficient permission')) },
  { method: 'GET', path: '/invites', request: () => ({ path: '/invites' }), expect: membersOnly(OK) },
  // Email invitations: anyone in can_invite_users_group (members by default); someone else's, administrators.
  {
    method: 'POST', path: '/invites',
    request: () => ({ path: '/invites', form: { invitee_emails: `${uniq('invitee')}@test.example`, stream_ids: '[]' } }),
    expect: membersOnly(OK),
  },
  ...(['DELETE /invites/{invite_id}', 'POST /invites/{invite_id}/resend'] as const).map((route): Row => {
    const [method, path] = route.split(' ') as [string, string];
    return {
      method, path,
      request: async (w) => {
        const email = `${uniq('invitee')}@test.example`;
        await ok(owner(w).post('/invites', { form: { invitee_emails: email, stream_ids: '[]' } }));
        const list = await ok(owner(w).get('/invites'));
        const id = list.invites.find((i: { email?: string }) => i.email === email).id;
        return { path: path.replace('{invite_id}', String(id)) };
      },
      expect: membersOnly(adminsOnly()),
    };
  }),
  {
    method: 'DELETE', path: '/invites/multiuse/{invite_id}',
    request: async (w) => {
      const made = await ok(owner(w).post('/invites/multiuse', { form: {} }));
      const list = await ok(owner(w).get('/invites'));
      const invite = list.invites.find((i: { link_url?: string }) => i.link_url === made.invite_link);
      return { path: `/invites/multiuse/${invite.id}` };
    },
    expect: adminsOnly(),
  },
  { method: 'GET', path: '/join/{key}', request: () => ({ path: '/join/no-such-key', root: true }), expect: () => err(404, undefined) },
  { method: 'POST', path: '/join/{key}', request: () => ({ path: '/join/no-such-key', root: true, form: { email: 'x@test.example' } }), expect: () => err(404, undefined) },
  { method: 'GET', path: '/accounts/do_confirm/{key}', request: () => ({ path: '/accounts/do_confirm/no-such-key', root: true }), expect: () => err(404, undefined) },
  {
    method: 'POST', path: '/accounts/do_confirm/{key}',
    request: () => ({ path: '/accounts/do_confirm/no-such-key', root: true, form: { full_name: 'X', password: 'a-long-password-1' } }),
    expect: () => err(404, undefined),
  },

  // Messages.
  {
    method: 'POST', path: '/messages', cases: VISIBILITIES,
    request: (w, _r, c) => ({ path: '/messages', form: { type: 'channel', to: String(w.channels[vis(c)].id), topic: 'posted', content: 'hello' } }),
    expect: canPost,
  },
  {
    // A channel narrow is a web-public narrow for spectators only when it names a web-public channel.
    method: 'GET', path: '/messages', cases: VISIBILITIES,
    request: (w, _r, c) => ({ path: '/messages', query: { anchor: 'newest', num_before: '10', num_after: '0', narrow: json([{ operator: 'channel', operand: w.channels[vis(c)].id }]) } }),
    expect: (r, c) => (r !== 'spectator' || c === 'webPublic' ? OK : NOT_LOGGED_IN),
  },
  {
    // With channels:web-public the narrow is web-public; a spectator's channel term must then name a web-public
    // channel, and any other (existing or not) is the same "unknown web-public channel".
    label: 'channels:web-public and a channel', method: 'GET', path: '/messages', cases: VISIBILITIES,
    request: (w, _r, c) => ({
      path: '/messages',
      query: { anchor: 'newest', num_before: '10', num_after: '0', narrow: json([{ operator: 'channels', operand: 'web-public' }, { operator: 'channel', operand: w.channels[vis(c)].id }]) },
    }),
    expect: (r, c) => (r !== 'spectator' || c === 'webPublic' ? OK : bad(/^Invalid narrow operator: unknown web-public channel \d+$/)),
  },
  {
    // Operators Zulip does not allow spectators (is, in, dm, …) make the request one that needs a login.
    label: 'a channel and is:starred', method: 'GET', path: '/messages', cases: VISIBILITIES,
    request: (w, _r, c) => ({
      path: '/messages',
      query: { anchor: 'newest', num_before: '10', num_after: '0', narrow: json([{ operator: 'channel', operand: w.channels[vis(c)].id }, { operator: 'is', operand: 'starred' }]) },
    }),
    expect: (r) => (r === 'spectator' ? NOT_LOGGED_IN : OK),
  },
  {
    method: 'GET', path: '/messages/{message_id}', cases: VISIBILITIES, request: (w, _r, c) => ({ path: `/messages/${w.channels[vis(c)].messageId}` }),
    // Zulip's access_web_public_message: anything but a web-public channel's message needs a login.
    expect: (r, c) => (r === 'spectator' ? (c === 'webPublic' ? OK : NOT_LOGGED_IN) : messageByContent(r, c)),
  },
  { method: 'POST', path: '/messages/render', request: () => ({ path: '/messages/render', form: { content: '**hi**' } }), expect: ALL_OK },
  {
    method: 'GET', path: '/messages/matches_narrow', cases: VISIBILITIES,
    request: (w, _r, c) => ({ path: '/messages/matches_narrow', query: { msg_ids: ids([w.channels[vis(c)].messageId]), narrow: json([{ operator: 'channel', operand: w.channels[vis(c)].id }]) } }),
    expect: ALL_OK,
  },
  { method: 'GET', path: '/messages/{message_id}/history', cases: VISIBILITIES, request: (w, _r, c) => ({ path: `/messages/${w.channels[vis(c)].messageId}/history` }), expect: messageByContent },
  {
    method: 'PATCH', path: '/messages/{message_id}', cases: VISIBILITIES,
    request: (w, _r, c) => ({ path: `/messages/${w.channels[vis(c)].messageId}`, form: { content: 'edited by someone else' } }),
    expect: (r, c) => (contentAccess(active(r), vis(c)) ? bad("You don't have permission to edit this message") : INVALID_MESSAGE),
  },
  {
    method: 'DELETE', path: '/messages/{message_id}', cases: ['public', 'privSub', 'privUnsub', 'webPublic'],
    request: async (w, _r, c) => {
      const sent = await ok(w.s.client.as(w.users.keeper).post('/messages', { form: { type: 'channel', to: String(w.channels[vis(c)].id), topic: 'to delete', content: 'delete me' } }));
      return { path: `/messages/${sent.id}` };
    },
    expect: (r, c) => (!contentAccess(active(r), vis(c)) ? INVALID_MESSAGE : isAdminRole(r) ? OK : bad("You don't have permission to delete this message")),
  },
  {
    method: 'POST', path: '/messages/flags', cases: VISIBILITIES,
    request: (w, _r, c) => ({ path: '/messages/flags', form: { messages: ids([w.channels[vis(c)].messageId]), op: 'add', flag: 'starred' } }),
    expect: messageByContent,
  },
  {
    method: 'POST', path: '/messages/flags/narrow', cases: VISIBILITIES,
    request: (w, _r, c) => ({ path: '/messages/flags/narrow', form: { anchor: 'newest', num_before: '10', num_after: '0', op: 'add', flag: 'starred', narrow: json([{ operator: 'channel', operand: w.channels[vis(c)].id }]) } }),
    expect: ALL_OK,
  },
  { method: 'POST', path: '/mark_all_as_read', request: () => ({ path: '/mark_all_as_read' }), expect: ALL_OK },
  { method: 'POST', path: '/mark_stream_as_read', cases: VISIBILITIES, request: (w, _r, c) => ({ path: '/mark_stream_as_read', form: { stream_id: String(w.channels[vis(c)].id) } }), expect: byContent },
  {
    method: 'POST', path: '/mark_topic_as_read', cases: VISIBILITIES,
    request: (w, _r, c) => ({ path: '/mark_topic_as_read', form: { stream_id: String(w.channels[vis(c)].id), topic_name: w.channels[vis(c)].topic } }),
    expect: byContent,
  },
  {
    method: 'POST', path: '/messages/{message_id}/reactions', cases: VISIBILITIES,
    request: (w, _r, c) => ({ path: `/messages/${w.channels[vis(c)].messageId}/reactions`, form: { emoji_name: 'smile' } }),
    expect: messageByContent,
  },
  {
    method: 'DELETE', path: '/messages/{message_id}/reactions', cases: VISIBILITIES,
    request: async (w, r, c) => {
      await as(w, r).post(`/messages/${w.channels[vis(c)].messageId}/reactions`, { form: { emoji_name: 'heart' } });
      return { path: `/messages/${w.channels[vis(c)].messageId}/reactions`, form: { emoji_name: 'heart' } };
    },
    expect: messageByContent,
  },

  // Data exports (administrators). DELETE and the download use IDs and names that do not exist, so the matrix
  // does not spend the realm's five exports a week: administrators get the not-found answer, others the refusal.
  { method: 'POST', path: '/export/realm', lock: 'exports', request: () => ({ path: '/export/realm' }), expect: adminsOnly() },
  { method: 'GET', path: '/export/realm', request: () => ({ path: '/export/realm' }), expect: adminsOnly() },
  { method: 'DELETE', path: '/export/realm/{export_id}', request: () => ({ path: '/export/realm/999999' }), expect: only(ADMINS, bad('Invalid data export ID'), MUST_BE_ADMIN) },
  { method: 'GET', path: '/export/realm/consents', request: () => ({ path: '/export/realm/consents' }), expect: adminsOnly() },
  {
    method: 'GET', path: '/user_avatars/exports/{realm_id}/{token}/{file_name}',
    request: () => ({ path: '/user_avatars/exports/1/none/palaver-export-none.jsonl.gz', root: true }),
    expect: only(ADMINS, FILE_NOT_FOUND, MUST_BE_ADMIN),
  },

  // Alert words and linkifiers.
  { method: 'GET', path: '/users/me/alert_words', request: () => ({ path: '/users/me/alert_words' }), expect: ALL_OK },
  { method: 'POST', path: '/users/me/alert_words', request: () => ({ path: '/users/me/alert_words', form: { alert_words: json(['ping']) } }), expect: ALL_OK },
  { method: 'DELETE', path: '/users/me/alert_words', request: () => ({ path: '/users/me/alert_words', form: { alert_words: json(['ping']) } }), expect: ALL_OK },
  { method: 'GET', path: '/realm/linkifiers', request: () => ({ path: '/realm/linkifiers' }), expect: ALL_OK },
  { method: 'POST', path: '/realm/filters', lock: 'linkifiers', request: () => ({ path: '/realm/filters', form: { pattern: `${uniq('TICKET')}-(?P<id>[0-9]+)`, url_template: 'https://example.test/{id}' } }), expect: adminsOnly() },
  {
    method: 'PATCH', path: '/realm/filters/{filter_id}', lock: 'linkifiers',
    request: async (w) => {
      const made = await ok(owner(w).post('/realm/filters', { form: { pattern: `${uniq('BUG')}-(?P<id>[0-9]+)`, url_template: 'https://example.test/{id}' } }));
      return { path: `/realm/filters/${made.id}`, form: { pattern: `${uniq('ISSUE')}-(?P<id>[0-9]+)`, url_template: 'https://example.test/{id}' } };
    },
    expect: adminsOnly(),
  },
  {
    method: 'DELETE', path: '/realm/filters/{filter_id}', lock: 'linkifiers',
    request: async (w) => {
      const made = await ok(owner(w).post('/realm/filters', { form: { pattern: `${uniq('DEL')}-(?P<id>[0-9]+)`, url_template: 'https://example.test/{id}' } }));
      return { path: `/realm/filters/${made.id}` };
    },
    expect: adminsOnly(),
  },
  {
    method: 'PATCH', path: '/realm/linkifiers', lock: 'linkifiers',
    request: async (w) => {
      const list = await ok(owner(w).get('/realm/linkifiers'));
      return { path: '/realm/linkifiers', form: { ordered_linkifier_ids: ids(list.linkifiers.map((l: { id: number }) => l.id)) } };
    },
    expect: adminsOnly(),
  },

  // Push, typing.
  {
    method: 'POST', path: '/mobile_push/register',
    request: () => ({ path: '/mobile_push/register', form: { token_kind: 'fcm', push_account_id: '1', push_public_key: 'a2V5', bouncer_public_key: 'a2V5', encrypted_push_registration: 'ZGF0YQ==' } }),
    expect: () => PUSH_NOT_CONFIGURED,
  },
  {
    method: 'POST', path: '/typing', cases: VISIBILITIES,
    request: (w, _r, c) => ({ path: '/typing', form: { type: 'channel', op: 'start', stream_id: String(w.channels[vis(c)].id), topic: w.channels[vis(c)].topic } }),
    expect: byContent,
  },

  // Events.
  { method: 'POST', path: '/register', request: () => ({ path: '/register', form: { event_types: json(['message']) } }), expect: ALL_OK },
  {
    method: 'GET', path: '/events',
    request: async (w, r) => {
      const q = await ok(as(w, r).post('/register', { form: { event_types: json(['message']) } }));
      return { path: '/events', query: { queue_id: q.queue_id, last_event_id: '-1', dont_block: 'true' } };
    },
    expect: ALL_OK,
  },
  {
    method: 'DELETE', path: '/events', cases: ['own', 'others'],
    request: async (w, r, c) => {
      const q = await ok((c === 'own' ? as(w, r) : w.s.client.as(w.users.keeper)).post('/register', { form: { event_types: json(['message']) } }));
      return { path: '/events', form: { queue_id: q.queue_id } };
    },
    expect: (_r, c) => (c === 'own' ? OK : err(400, 'BAD_EVENT_QUEUE_ID')),
  },
  // Without an upgrade the socket path answers an error after authenticating (the upgrade itself, per user and
  // queue, is test/http/events-socket.test.ts's); a spectator has neither credentials nor a ticket.
  {
    method: 'GET', path: '/events/socket',
    request: async (w, r) => {
      const q = r === 'spectator' ? { queue_id: 'none' } : await ok(as(w, r).post('/register', { form: { event_types: json(['message']) } }));
      return { path: '/events/socket', query: { queue_id: q.queue_id } };
    },
    expect: (r) => (r === 'spectator' ? NOT_LOGGED_IN : err(400, 'BAD_REQUEST', 'This endpoint takes a WebSocket upgrade')),
  },
  {
    method: 'POST', path: '/events/socket/ticket', cases: ['own', 'others'],
    request: async (w, r, c) => {
      const q = await ok((c === 'own' ? as(w, r) : w.s.client.as(w.users.keeper)).post('/register', { form: { event_types: json(['message']) } }));
      return { path: '/events/socket/ticket', form: { queue_id: q.queue_id } };
    },
    expect: (_r, c) => (c === 'own' ? OK : err(400, 'BAD_EVENT_QUEUE_ID')),
  },

  // Channels.
  {
    method: 'POST', path: '/channels/create',
    request: () => ({ path: '/channels/create', form: { name: uniq('created '), subscribers: '[]' } }),
    expect: (r) => (r === 'guest' ? INSUFFICIENT : OK),
  },
  { method: 'GET', path: '/streams', request: () => ({ path: '/streams' }), expect: ALL_OK },
  { method: 'GET', path: '/streams/{stream_id}', cases: VISIBILITIES, request: (w, _r, c) => ({ path: `/streams/${w.channels[vis(c)].id}` }), expect: byMetadata },
  {
    method: 'GET', path: '/get_stream_id', cases: VISIBILITIES,
    request: (w, _r, c) => ({ path: '/get_stream_id', query: { stream: w.channels[vis(c)].name } }),
    expect: (r, c) => (metadataAccess(active(r), vis(c)) ? OK : bad(`Invalid channel name '${c} room'`)),
  },
  { method: 'GET', path: '/streams/{stream_id}/members', cases: VISIBILITIES, request: (w, _r, c) => ({ path: `/streams/${w.channels[vis(c)].id}/members` }), expect: byMetadata },
  {
    method: 'PATCH', path: '/streams/{stream_id}', cases: VISIBILITIES,
    request: (w, _r, c) => ({ path: `/streams/${w.channels[vis(c)].id}`, form: { description: `the ${c} channel` } }),
    expect: (r, c) => (!metadataAccess(active(r), vis(c)) ? INVALID_CHANNEL : !isAdminRole(r) ? bad('You do not have permission to administer this channel.') : c === 'archived' ? ARCHIVED : OK),
  },
  {
    method: 'DELETE', path: '/streams/{stream_id}', cases: VISIBILITIES,
    request: async (w, _r, c) => ({ path: `/streams/${await freshChannel(w, vis(c))}` }),
    expect: (r, c) => (!metadataAccess(active(r), vis(c)) ? INVALID_CHANNEL : !isAdminRole(r) ? bad('You do not have permission to administer this channel.') : c === 'archived' ? bad('Channel is already deactivated') : OK),
  },
  { method: 'GET', path: '/users/me/subscriptions', request: () => ({ path: '/users/me/subscriptions' }), expect: ALL_OK },
  subscribeSelfRow('POST', 'subscriptions'),
  subscribeSelfRow('PATCH', 'add'),
  {
    method: 'DELETE', path: '/users/me/subscriptions', cases: VISIBILITIES,
    request: async (w, _r, c) => {
      const id = await freshChannel(w, vis(c));
      const ch = await ok(owner(w).get(`/streams/${id}`));
      return { path: '/users/me/subscriptions', form: { subscriptions: json([ch.stream.name]) } };
    },
    expect: (r, c) => (metadataAccess(active(r), vis(c)) ? OK : err(400, 'STREAM_DOES_NOT_EXIST', /^Channel 'fresh \w+ \d+' does not exist$/)),
  },
  {
    method: 'POST', path: '/users/me/subscriptions/properties', cases: VISIBILITIES,
    request: (w, _r, c) => ({ path: '/users/me/subscriptions/properties', form: { subscription_data: json([{ stream_id: w.channels[vis(c)].id, property: 'pin_to_top', value: false }]) } }),
    expect: (r, c) => (c === 'privSub' ? OK : metadataAccess(active(r), vis(c)) ? bad(/^Not subscribed to channel ID \d+$/) : INVALID_CHANNEL),
  },
  {
    method: 'GET', path: '/users/{user_id}/subscriptions/{stream_id}', cases: VISIBILITIES,
    request: (w, _r, c) => ({ path: `/users/${w.users.keeper.id}/subscriptions/${w.channels[vis(c)].id}` }),
    expect: byMetadata,
  },
  { method: 'POST', path: '/channel_folders/create', lock: 'folders', request: () => ({ path: '/channel_folders/create', form: { name: uniq('folder '), description: '' } }), expect: adminsOnly() },
  { method: 'GET', path: '/channel_folders', request: () => ({ path: '/channel_folders' }), expect: ALL_OK },
  {
    method: 'PATCH', path: '/channel_folders/{channel_folder_id}', lock: 'folders',
    request: async (w) => {
      const made = await ok(owner(w).post('/channel_folders/create', { form: { name: uniq('owners folder '), description: '' } }));
      return { path: `/channel_folders/${made.channel_folder_id}`, form: { description: 'changed' } };
    },
    expect: adminsOnly(),
  },
  {
    method: 'PATCH', path: '/channel_folders', lock: 'folders',
    request: async (w) => {
      const list = await ok(owner(w).get('/channel_folders', { query: { include_archived: 'true' } }));
      return { path: '/channel_folders', form: { order: ids(list.channel_folders.map((f: { id: number }) => f.id)) } };
    },
    expect: adminsOnly(),
  },
  {
    method: 'POST', path: '/default_streams', cases: VISIBILITIES,
    request: async (w, _r, c) => ({ path: '/default_streams', form: { stream_id: String(await freshChannel(w, vis(c))) } }),
    expect: (r, c) =>
      !isAdminRole(r) ? MUST_BE_ADMIN : c === 'privSub' || c === 'privUnsub' ? bad('Private channels cannot be made default.') : c === 'archived' ? bad('Archived channels cannot be made default.') : OK,
  },
  {
    method: 'DELETE', path: '/default_streams', cases: ['public'],
    request: async (w) => {
      const id = await freshChannel(w, 'public');
      await ok(owner(w).post('/default_streams', { form: { stream_id: String(id) } }));
      return { path: '/default_streams', form: { stream_id: String(id) } };
    },
    expect: adminsOnly(),
  },
  {
    method: 'POST', path: '/user_topics', cases: VISIBILITIES,
    request: (w, _r, c) => ({ path: '/user_topics', form: { stream_id: String(w.channels[vis(c)].id), topic: w.channels[vis(c)].topic, visibility_policy: '1' } }),
    expect: byContent,
  },
  {
    method: 'PATCH', path: '/users/me/subscriptions/muted_topics', cases: VISIBILITIES,
    request: (w, _r, c) => ({ path: '/users/me/subscriptions/muted_topics', form: { stream_id: String(w.channels[vis(c)].id), topic: w.channels[vis(c)].topic, op: 'add' } }),
    expect: byContent,
  },
  { method: 'GET', path: '/users/me/{stream_id}/topics', cases: VISIBILITIES, request: (w, _r, c) => ({ path: `/users/me/${w.channels[vis(c)].id}/topics` }), expect: byContent },
  {
    method: 'POST', path: '/streams/{stream_id}/delete_topic', cases: VISIBILITIES,
    request: async (w, _r, c) => ({ path: `/streams/${await freshChannel(w, vis(c))}/delete_topic`, form: { topic_name: 'nothing here' } }),
    expect: (r, c) => (!isAdminRole(r) ? MUST_BE_ADMIN : contentAccess(active(r), vis(c)) ? OK : INVALID_CHANNEL),
  },

  // Drafts, snippets, navigation views, scheduled messages: the user's own things.
  { method: 'GET', path: '/drafts', request: () => ({ path: '/drafts' }), expect: ALL_OK },
  {
    method: 'POST', path: '/drafts', cases: VISIBILITIES,
    request: (w, _r, c) => ({ path: '/drafts', form: { drafts: json([{ type: 'stream', to: [w.channels[vis(c)].id], topic: 't', content: 'draft' }]) } }),
    expect: byContent,
  },
  {
    method: 'PATCH', path: '/drafts/{draft_id}',
    request: async (w, r) => {
      const made = await ok(as(w, r).post('/drafts', { form: { drafts: json([{ type: '', to: [], topic: '', content: 'mine' }]) } }));
      return { path: `/drafts/${made.ids[0]}`, form: { draft: json({ type: '', to: [], topic: '', content: 'changed' }) } };
    },
    expect: ALL_OK,
  },
  {
    method: 'DELETE', path: '/drafts/{draft_id}', cases: ['own', 'others'],
    request: async (w, r, c) => {
      const made = await ok((c === 'own' ? as(w, r) : w.s.client.as(w.users.keeper)).post('/drafts', { form: { drafts: json([{ type: '', to: [], topic: '', content: 'x' }]) } }));
      return { path: `/drafts/${made.ids[0]}` };
    },
    expect: (_r, c) => (c === 'own' ? OK : err(404, 'BAD_REQUEST', 'Draft does not exist')),
  },
  { method: 'GET', path: '/saved_snippets', request: () => ({ path: '/saved_snippets' }), expect: ALL_OK },
  { method: 'POST', path: '/saved_snippets', request: () => ({ path: '/saved_snippets', form: { title: 'T', content: 'C' } }), expect: ALL_OK },
  {
    method: 'PATCH', path: '/saved_snippets/{saved_snippet_id}', cases: ['own', 'others'],
    request: async (w, r, c) => {
      const made = await ok((c === 'own' ? as(w, r) : w.s.client.as(w.users.keeper)).post('/saved_snippets', { form: { title: 'T', content: 'C' } }));
      return { path: `/saved_snippets/${made.saved_snippet_id}`, form: { title: 'U' } };
    },
    expect: (_r, c) => (c === 'own' ? OK : err(404, 'BAD_REQUEST', 'Saved snippet does not exist.')),
  },
  {
    method: 'DELETE', path: '/saved_snippets/{saved_snippet_id}',
    request: async (w, r) => {
      const made = await ok(as(w, r).post('/saved_snippets', { form: { title: 'T', content: 'C' } }));
      return { path: `/saved_snippets/${made.saved_snippet_id}` };
    },
    expect: ALL_OK,
  },
  { method: 'GET', path: '/navigation_views', request: () => ({ path: '/navigation_views' }), expect: ALL_OK },
  { method: 'POST', path: '/navigation_views', request: () => ({ path: '/navigation_views', form: { fragment: uniq('new-view'), is_pinned: 'true', name: uniq('Mine ') } }), expect: ALL_OK },
  ...navRows,
  { method: 'GET', path: '/scheduled_messages', request: () => ({ path: '/scheduled_messages' }), expect: ALL_OK },
  {
    method: 'POST', path: '/scheduled_messages', cases: VISIBILITIES,
    request: (w, _r, c) => ({
      path: '/scheduled_messages',
      form: { type: 'channel', to: String(w.channels[vis(c)].id), topic: 'later', content: 'later', scheduled_delivery_timestamp: String(Math.floor(Date.now() / 1000) + 86400) },
    }),
    expect: canPost,
  },
  {
    method: 'PATCH', path: '/scheduled_messages/{scheduled_message_id}',
    request: async (w, r) => {
      const made = await ok(as(w, r).post('/scheduled_messages', { form: { type: 'direct', to: ids([w.users.keeper.id]), content: 'later', scheduled_delivery_timestamp: String(Math.floor(Date.now() / 1000) + 86400) } }));
      return { path: `/scheduled_messages/${made.scheduled_message_id}`, form: { content: 'even later' } };
    },
    expect: ALL_OK,
  },
  {
    method: 'DELETE', path: '/scheduled_messages/{scheduled_message_id}', cases: ['own', 'others'],
    request: async (w, r, c) => {
      const made = await ok((c === 'own' ? as(w, r) : w.s.client.as(w.users.keeper)).post('/scheduled_messages', {
        form: { type: 'direct', to: ids([w.users.member.id]), content: 'later', scheduled_delivery_timestamp: String(Math.floor(Date.now() / 1000) + 86400) },
      }));
      return { path: `/scheduled_messages/${made.scheduled_message_id}` };
    },
    expect: (_r, c) => (c === 'own' ? OK : err(404, 'BAD_REQUEST', 'Scheduled message does not exist')),
  },

  // Custom profile fields (one lock: creating and deleting fields changes the order a reorder must list).
  { method: 'GET', path: '/realm/profile_fields', request: () => ({ path: '/realm/profile_fields' }), expect: ALL_OK },
  {
    method: 'POST', path: '/realm/profile_fields', lock: 'profile_fields',
    request: () => ({ path: '/realm/profile_fields', form: { name: uniq('Field '), field_type: '1' } }),
    expect: adminsOnly(),
  },
  {
    method: 'PATCH', path: '/realm/profile_fields', lock: 'profile_fields',
    request: async (w) => {
      const list = await ok(owner(w).get('/realm/profile_fields'));
      return { path: '/realm/profile_fields', form: { order: ids(list.custom_fields.map((f: { id: number }) => f.id).reverse()) } };
    },
    expect: adminsOnly(),
  },
  {
    method: 'PATCH', path: '/realm/profile_fields/{field_id}', lock: 'profile_fields',
    request: async (w) => ({ path: `/realm/profile_fields/${await freshField(w)}`, form: { hint: 'changed' } }),
    expect: adminsOnly(),
  },
  {
    method: 'DELETE', path: '/realm/profile_fields/{field_id}', lock: 'profile_fields',
    request: async (w) => ({ path: `/realm/profile_fields/${await freshField(w)}` }),
    expect: adminsOnly(),
  },
  {
    method: 'PATCH', path: '/users/me/profile_data', lock: 'profile_fields',
    request: async (w) => ({ path: '/users/me/profile_data', form: { data: json([{ id: await freshField(w), value: 'mine' }]) } }),
    expect: (r) => (r === 'bot' ? NOT_FOR_BOTS : OK),
  },
  {
    method: 'DELETE', path: '/users/me/profile_data', lock: 'profile_fields',
    request: async (w) => ({ path: '/users/me/profile_data', form: { data: ids([await freshField(w)]) } }),
    expect: (r) => (r === 'bot' ? NOT_FOR_BOTS : OK),
  },

  // Muted users, read receipts, reports, reminders, typing while editing.
  {
    method: 'POST', path: '/users/me/muted_users/{muted_user_id}',
    request: async (w) => ({ path: `/users/me/muted_users/${(await addUser(w.s, { fullName: 'Noisy' })).id}` }),
    expect: ALL_OK,
  },
  {
    method: 'DELETE', path: '/users/me/muted_users/{muted_user_id}',
    request: async (w, r) => {
      const noisy = await addUser(w.s, { fullName: 'Noisy' });
      await ok(as(w, r).post(`/users/me/muted_users/${noisy.id}`));
      return { path: `/users/me/muted_users/${noisy.id}` };
    },
    expect: ALL_OK,
  },
  {
    method: 'GET', path: '/messages/{message_id}/read_receipts', cases: VISIBILITIES,
    request: (w, _r, c) => ({ path: `/messages/${w.channels[vis(c)].messageId}/read_receipts` }),
    expect: messageByContent,
  },
  {
    // The world has no moderation request channel: refused before the message is looked at (the reference's order).
    method: 'POST', path: '/messages/{message_id}/report',
    request: (w) => ({ path: `/messages/${w.channels.public.messageId}/report`, form: { report_type: 'spam' } }),
    expect: () => bad('Moderation request channel must be specified to enable message reporting.'),
  },
  { method: 'GET', path: '/reminders', request: () => ({ path: '/reminders' }), expect: ALL_OK },
  {
    method: 'POST', path: '/reminders', cases: VISIBILITIES,
    request: (w, _r, c) => ({
      path: '/reminders',
      form: { message_id: String(w.channels[vis(c)].messageId), scheduled_delivery_timestamp: String(Math.floor(Date.now() / 1000) + 86400) },
    }),
    expect: messageByContent,
  },
  {
    method: 'DELETE', path: '/reminders/{reminder_id}', cases: ['own', 'others'],
    request: async (w, r, c) => {
      // About the message of the channel the whole cast is subscribed to.
      const made = await ok((c === 'own' ? as(w, r) : w.s.client.as(w.users.keeper)).post('/reminders', {
        form: { message_id: String(w.channels.privSub.messageId), scheduled_delivery_timestamp: String(Math.floor(Date.now() / 1000) + 86400) },
      }));
      return { path: `/reminders/${made.reminder_id}` };
    },
    expect: (_r, c) => (c === 'own' ? OK : err(404, 'BAD_REQUEST', 'Reminder does not exist')),
  },
  {
    method: 'POST', path: '/messages/{message_id}/typing', cases: VISIBILITIES,
    request: (w, _r, c) => ({ path: `/messages/${w.channels[vis(c)].messageId}/typing`, form: { op: 'start' } }),
    expect: messageByContent,
  },

  // Channel email address, the notification settings alias, code playgrounds.
  {
    method: 'GET', path: '/streams/{stream_id}/email_address', cases: VISIBILITIES,
    request: (w, _r, c) => ({ path: `/streams/${w.channels[vis(c)].id}/email_address` }),
    expect: byContent,
  },
  // The same view as PATCH /settings in the reference (json_change_settings, human_users_only).
  { method: 'PATCH', path: '/settings/notifications', request: () => ({ path: '/settings/notifications', form: { enable_sounds: 'true' } }), expect: humansOnly },
  {
    method: 'POST', path: '/realm/playgrounds',
    request: () => ({ path: '/realm/playgrounds', form: { name: uniq('Playground '), pygments_language: 'Python', url_template: 'https://play.example/?code={code}' } }),
    expect: adminsOnly(),
  },
  {
    method: 'DELETE', path: '/realm/playgrounds/{playground_id}',
    request: async (w) => {
      const made = await ok(owner(w).post('/realm/playgrounds', { form: { name: uniq('Playground '), pygments_language: 'Python', url_template: 'https://play.example/?code={code}' } }));
      return { path: `/realm/playgrounds/${made.id}` };
    },
    expect: adminsOnly(),
  },

  // Bot storage (bots only) and the legacy push-token endpoints (humans only).
  { method: 'GET', path: '/bot_storage', request: () => ({ path: '/bot_storage' }), expect: only(['bot'], OK, bad('Must be a bot user')) },
  { method: 'PUT', path: '/bot_storage', request: () => ({ path: '/bot_storage', form: { storage: json({ k: 'v' }) } }), expect: only(['bot'], OK, bad('Must be a bot user')) },
  { method: 'DELETE', path: '/bot_storage', request: () => ({ path: '/bot_storage' }), expect: only(['bot'], OK, bad('Must be a bot user')) },
  ...legacyPushRows('/users/me/apns_device_token', { appid: 'org.zulip.Zulip' }),
  ...legacyPushRows('/users/me/android_gcm_reg_id', {}),

  // Running the organization (settings, domains, icon and logos, deactivation).
  { method: 'PATCH', path: '/realm', request: () => ({ path: '/realm', form: { default_code_block_language: uniq('lang') } }), expect: adminsOnly() },
  {
    label: 'owner-only setting', method: 'PATCH', path: '/realm',
    request: () => ({ path: '/realm', form: { waiting_period_threshold: '0' } }),
    expect: (r) => (r === 'owner' ? OK : r === 'admin' ? MUST_BE_OWNER : MUST_BE_ADMIN),
  },
  {
    // The owner passes the permission check and is stopped by the validation after it (the world must live on).
    method: 'POST', path: '/realm/deactivate',
    request: () => ({ path: '/realm/deactivate', form: { deletion_delay_days: '1' } }),
    expect: only(['owner'], bad('Data deletion time must be at least 14 days in the future.'), MUST_BE_OWNER),
  },
  { method: 'GET', path: '/realm/domains', request: () => ({ path: '/realm/domains' }), expect: ALL_OK },
  {
    method: 'POST', path: '/realm/domains',
    request: () => ({ path: '/realm/domains', form: { domain: `${uniq('d')}.example.com`, allow_subdomains: 'false' } }),
    expect: ownersOnly,
  },
  {
    method: 'PATCH', path: '/realm/domains/{domain}',
    request: async (w) => ({ path: `/realm/domains/${await freshDomain(w)}`, form: { allow_subdomains: 'true' } }),
    expect: ownersOnly,
  },
  { method: 'DELETE', path: '/realm/domains/{domain}', request: async (w) => ({ path: `/realm/domains/${await freshDomain(w)}` }), expect: ownersOnly },
  { method: 'POST', path: '/realm/icon', request: async () => ({ path: '/realm/icon', multipart: { file: await pngFile() } }), expect: adminsOnly(), lock: 'branding' },
  { method: 'DELETE', path: '/realm/icon', request: () => ({ path: '/realm/icon' }), expect: adminsOnly(), lock: 'branding' },
  { method: 'POST', path: '/realm/logo', request: async () => ({ path: '/realm/logo', query: { night: 'true' }, multipart: { file: await pngFile() } }), expect: adminsOnly(), lock: 'branding' },
  { method: 'DELETE', path: '/realm/logo', request: () => ({ path: '/realm/logo', query: { night: 'true' } }), expect: adminsOnly(), lock: 'branding' },
  {
    method: 'GET', path: '/user_avatars/{realm_id}/realm/{file_name}', lock: 'branding',
    // One day logo for every role (each upload replaces the file before it); the other rows change the night logo.
    request: async (w) => ({ path: await (dayLogo ??= uploadDayLogo(w)), root: true }),
    expect: ALL_OK,
  },

  // The server's own endpoints: no realm, no user.
  { method: 'GET', path: '/health/live', request: () => ({ path: '/health/live', root: true }), expect: ALL_OK },
  { method: 'GET', path: '/health/ready', request: () => ({ path: '/health/ready', root: true }), expect: ALL_OK },
  { method: 'GET', path: '/metrics', request: () => ({ path: '/metrics', root: true }), expect: () => OPERATOR_TOKEN },
  { method: 'GET', path: '/operators/actors', request: () => ({ path: '/operators/actors', root: true }), expect: () => OPERATOR_TOKEN },
  { method: 'GET', path: '/operators/actors/counts', request: () => ({ path: '/operators/actors/counts', root: true }), expect: () => OPERATOR_TOKEN },
  { method: 'GET', path: '/operators/actors/{actor_id}', request: () => ({ path: '/operators/actors/realm:1', root: true }), expect: () => OPERATOR_TOKEN },
  { method: 'GET', path: '/operators/cluster', request: () => ({ path: '/operators/cluster', root: true }), expect: () => OPERATOR_TOKEN },
  { method: 'GET', path: '/operators/traffic', request: () => ({ path: '/operators/traffic', root: true }), expect: () => OPERATOR_TOKEN },
  { method: 'GET', path: '/operators/dashboard', request: () => ({ path: '/operators/dashboard', root: true }), expect: ALL_OK },
  { method: 'GET', path: '/operators/dashboard.js', request: () => ({ path: '/operators/dashboard.js', root: true }), expect: ALL_OK },
  { method: 'GET', path: '/operators/dashboard.css', request: () => ({ path: '/operators/dashboard.css', root: true }), expect: ALL_OK },
];

