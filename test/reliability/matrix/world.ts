// The permission matrix's world, built once: one user per role (plus a bot, a deactivated user, a user of
// another realm and a spectator), and one channel per visibility, each holding a message in its own topic
// that links an upload made for it alone.
import sharp from 'sharp';
import { createRealm, createUser } from '../../../src/realm/provision.js';
import { ROLE } from '../../../src/model/realm.js';
import { Client, type Credentials } from '../../helpers/http.js';
import { OWNER_EMAIL, startTestServer, type TestServer } from '../../helpers/server.js';
import { addUser, type TestUser } from '../../helpers/users.js';

export const ROLES = ['owner', 'admin', 'moderator', 'member', 'guest', 'bot', 'deactivated', 'otherRealm', 'spectator'] as const;
export type RoleName = (typeof ROLES)[number];
/** The roles that pass authentication in our realm. */
export const ACTIVE = ['owner', 'admin', 'moderator', 'member', 'guest', 'bot'] as const;
export type ActiveRole = (typeof ACTIVE)[number];

/** public: nobody of the cast subscribed; privSub: the whole cast subscribed; privUnsub: only the keeper. */
export const VISIBILITIES = ['public', 'privSub', 'privUnsub', 'webPublic', 'archived'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

export interface ChannelFixture {
  id: number;
  name: string;
  topic: string;
  /** A word that appears only in this channel's message (search narrows). */
  secret: string;
  messageId: number;
  uploadUrl: string;
  attachmentId: number;
}

export interface World {
  s: TestServer;
  users: Record<Exclude<RoleName, 'spectator' | 'otherRealm'>, TestUser> & { keeper: TestUser };
  other: { creds: Credentials; id: number; client: Client };
  channels: Record<Visibility, ChannelFixture>;
  /** A direct message from the keeper to the member only. */
  directMessageId: number;
  /** Credentials of a role; null for the spectator. otherRealm's are valid only at its own host. */
  creds(role: RoleName): Credentials | null;
  /** A client for a role: otherRealm talks to its own realm's host, the spectator sends no credentials. */
  client(role: RoleName): Client;
}

const OTHER_SUBDOMAIN = 'elsewhere';

export async function buildWorld(): Promise<World> {
  const s = await startTestServer({ env: { OPERATOR_TOKEN: 'matrix-operator-token' } });
  const { db, realms } = s.server.services;
  const realm = await realms.forHost(undefined);
  const spectators = await s.client.as(s.owner).patch('/realm', { form: { enable_spectator_access: 'true' } });
  if (spectators.status !== 200) throw new Error(`enabling spectator access: ${spectators.text}`);

  const ownerUser = realm.state.userByEmail(OWNER_EMAIL)!;
  const users = {
    owner: { ...s.owner, id: ownerUser.id, fullName: ownerUser.fullName, role: ROLE.OWNER } as TestUser,
    admin: await addUser(s, { role: ROLE.ADMINISTRATOR, fullName: 'Ada Admin', email: 'admin@test.example' }),
    moderator: await addUser(s, { role: ROLE.MODERATOR, fullName: 'Mo Moderator', email: 'moderator@test.example' }),
    member: await addUser(s, { role: ROLE.MEMBER, fullName: 'Mia Member', email: 'member@test.example' }),
    guest: await addUser(s, { role: ROLE.GUEST, fullName: 'Gus Guest', email: 'guest@test.example' }),
    bot: await addUser(s, { role: ROLE.MEMBER, fullName: 'Bo Bot', email: 'bo-bot@test.example', isBot: true }),
    deactivated: await addUser(s, { role: ROLE.MEMBER, fullName: 'Dee Deactivated', email: 'dee@test.example' }),
    keeper: await addUser(s, { role: ROLE.MEMBER, fullName: 'Kim Keeper', email: 'keeper@test.example' }),
  };

  // Another realm with one member, served at its own subdomain of the test host.
  const otherUser = await db.tx(async (tx) => {
    const r = await createRealm(tx, { stringId: OTHER_SUBDOMAIN, name: 'Elsewhere' });
    const u = await createUser(tx, r.id, { email: 'zed@elsewhere.test', fullName: 'Zed', role: ROLE.MEMBER, passwordHash: null });
    await tx.changes.record(null);
    return u;
  });
  const otherClient = s.client.withHost(`${OTHER_SUBDOMAIN}.127.0.0.1:${s.port}`);
  const other = { creds: { email: 'zed@elsewhere.test', apiKey: otherUser.apiKey }, id: otherUser.id, client: otherClient };
  for (let i = 0; i < 100 && (await otherClient.get('/server_settings')).json?.realm_name !== 'Elsewhere'; i++) {
    await new Promise((r) => setTimeout(r, 50));
  }

  const keeper = s.client.as(users.keeper);
  await keeper.post('/users/me/presence', { form: { status: 'active' } });
  const cast = ['owner', 'admin', 'moderator', 'member', 'guest', 'bot', 'deactivated'] as const;
  const specs: Record<Visibility, { extra: Record<string, string>; subscribers: number[] }> = {
    public: { extra: {}, subscribers: [users.keeper.id] },
    privSub: { extra: { invite_only: 'true' }, subscribers: [users.keeper.id, ...cast.map((r) => users[r].id)] },
    privUnsub: { extra: { invite_only: 'true' }, subscribers: [users.keeper.id] },
    webPublic: { extra: { is_web_public: 'true' }, subscribers: [users.keeper.id] },
    archived: { extra: {}, subscribers: [users.keeper.id] },
  };
  const channels = {} as Record<Visibility, ChannelFixture>;
  for (const vis of Object.keys(specs) as Visibility[]) {
    // Names no error text contains ("unknown web-public channel" would contain "public channel").
    const name = `${vis} room`;
    // The owner creates the channels (web-public needs the permission) and subscribes exactly the listed users.
    const made = await s.client.as(users.owner).post('/channels/create', {
      form: { name, subscribers: JSON.stringify(specs[vis].subscribers), ...specs[vis].extra },
    });
    if (made.status !== 200) throw new Error(`creating ${name}: ${made.text}`);
    const id = made.json.id as number;
    const secret = `zebra${vis.toLowerCase()}word`;
    const topic = `${vis} topic`;
    // An image, so that its thumbnail route is in the matrix too.
    const image = await sharp({ create: { width: 8, height: 6, channels: 3, background: 'white' } }).png().toBuffer();
    const up = await keeper.post('/user_uploads', { multipart: { file: new File([new Uint8Array(image)], `${vis}.png`, { type: 'image/png' }) } });
    if (up.status !== 200) throw new Error(`upload: ${up.text}`);
    const sent = await keeper.post('/messages', {
      form: { type: 'channel', to: String(id), topic, content: `the ${secret} is here: [${vis}.png](${up.json.url})` },
    });
    if (sent.status !== 200) throw new Error(`send to ${name}: ${sent.text}`);
    const att = (await keeper.get('/attachments')).json.attachments.find((a: { path_id: string; name: string }) => a.name === `${vis}.png`);
    channels[vis] = { id, name, topic, secret, messageId: sent.json.id, uploadUrl: up.json.url, attachmentId: att.id };
  }
  const archived = await s.client.as(users.owner).delete(`/streams/${channels.archived.id}`);
  if (archived.status !== 200) throw new Error(`archive: ${archived.text}`);

  const dm = await keeper.post('/messages', { form: { type: 'direct', to: JSON.stringify([users.member.id]), content: 'just for you' } });
  if (dm.status !== 200) throw new Error(`dm: ${dm.text}`);

  const deactivate = await s.client.as(users.owner).delete(`/users/${users.deactivated.id}`);
  if (deactivate.status !== 200) throw new Error(`deactivate: ${deactivate.text}`);

  const creds = (role: RoleName): Credentials | null =>
    role === 'spectator' ? null : role === 'otherRealm' ? other.creds : users[role];
  return {
    s,
    users,
    other,
    channels,
    directMessageId: dm.json.id,
    creds,
    client(role) {
      if (role === 'spectator') return s.client;
      if (role === 'otherRealm') return otherClient.as(other.creds);
      return s.client.as(users[role]);
    },
  };
}
