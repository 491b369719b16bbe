// Fixtures for the channels tests: a cast of users of every role, channel creation, messages inserted
// straight into the store, and a recorder of published events.
import type { RealmEvent } from '../../src/events/hub.js';
import { recipientId } from '../../src/events/hub.js';
import type { Credentials } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser, type TestUser } from '../helpers/users.js';

export interface Cast {
  owner: TestUser;
  admin: TestUser;
  moderator: TestUser;
  member: TestUser;
  other: TestUser;
  guest: TestUser;
}

/** The owner as a TestUser, and one user of each other role (plus a second member). */
export async function makeCast(s: TestServer): Promise<Cast> {
  const realm = await s.server.services.realms.forHost(undefined);
  const ownerUser = realm.state.userByEmail(s.owner.email)!;
  const owner: TestUser = { ...s.owner, id: ownerUser.id, fullName: ownerUser.fullName, role: 100 };
  return {
    owner,
    admin: await addUser(s, { role: 200, fullName: 'Ada Admin' }),
    moderator: await addUser(s, { role: 300, fullName: 'Mo Moderator' }),
    member: await addUser(s, { role: 400, fullName: 'Mia Member' }),
    other: await addUser(s, { role: 400, fullName: 'Otto Other' }),
    guest: await addUser(s, { role: 600, fullName: 'Gus Guest' }),
  };
}

export async function realmState(s: TestServer) {
  return (await s.server.services.realms.forHost(undefined)).state;
}

let channelCounter = 0;
export function uniqueName(prefix = 'channel'): string {
  return `${prefix} ${++channelCounter}`;
}

/** POST /channels/create; returns the new channel's ID (fails the test setup on an error). */
export async function createChannel(
  s: TestServer,
  as: Credentials,
  name: string,
  subscribers: number[],
  extra: Record<string, string> = {},
): Promise<number> {
  const r = await s.client.as(as).post('/channels/create', { form: { name, subscribers: JSON.stringify(subscribers), ...extra } });
  if (r.status !== 200) throw new Error(`creating ${name}: ${r.text}`);
  return r.json.id as number;
}

/** Inserts channel messages directly (the messages domain is elsewhere); returns their IDs, oldest first.
 *  The realm reloads its working set afterwards (first_message_id). */
export async function insertMessages(
  s: TestServer,
  channelId: number,
  topic: string,
  count: number,
  opts: { senderId: number; recipients: number[]; daysAgo?: number },
): Promise<number[]> {
  const { db } = s.server.services;
  const realm = await s.server.services.realms.forHost(undefined);
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    const row = await db.one(
      `INSERT INTO messages (realm_id, sender_id, recipient_kind, stream_id, topic, content, rendered_content, date_sent)
       VALUES ($1, $2, 'stream', $3, $4, $5, $6, now() - make_interval(days => $7)) RETURNING id`,
      [realm.id, opts.senderId, channelId, topic, `message ${i}`, `<p>message ${i}</p>`, opts.daysAgo ?? 0],
    );
    const id = Number(row.id);
    if (opts.recipients.length > 0) {
      await db.none('INSERT INTO user_messages (user_id, message_id) SELECT unnest($1::int[]), $2', [opts.recipients, id]);
    }
    ids.push(id);
  }
  await realm.dispatch('realm.reload');
  return ids;
}

export interface Recorded {
  event: Record<string, any>;
  users: number[];
  legacy?: RealmEvent['legacy'];
}

/** Records every event published from now on; `take()` returns and clears them. */
export function recordEvents(s: TestServer) {
  let events: Recorded[] = [];
  const stop = s.server.services.hub.subscribe((_realmId, published) => {
    for (const e of published) events.push({ event: e.event, users: e.users.map(recipientId).sort((a, b) => a - b), legacy: e.legacy });
  });
  return {
    take(): Recorded[] {
      const out = events;
      events = [];
      return out;
    },
    stop,
  };
}

/** The events of a type (and op) among those recorded. */
export function ofType(events: Recorded[], type: string, op?: string): Recorded[] {
  return events.filter((e) => e.event.type === type && (op === undefined || e.event.op === op));
}

/** Sets realm settings in the database and reloads the realm (no settings endpoint in this domain). */
export async function setRealmSettings(s: TestServer, settings: Record<string, unknown>): Promise<void> {
  const realm = await s.server.services.realms.forHost(undefined);
  await s.server.services.db.none('UPDATE realms SET settings = settings || $2::jsonb WHERE id = $1', [realm.id, JSON.stringify(settings)]);
  await realm.dispatch('realm.reload');
}

export const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);

/** A test file's server with the cast of users and the IDs of the system groups by name. */
export async function startChannelsServer(): Promise<{ s: TestServer; cast: Cast; groups: Record<string, number> }> {
  const s = await startTestServer();
  const cast = await makeCast(s);
  const state = await realmState(s);
  const groups = Object.fromEntries([...state.groupsById.values()].filter((g) => g.isSystemGroup).map((g) => [g.name, g.id]));
  return { s, cast, groups };
}

/** A form whose non-string values are sent as JSON, as the API takes lists and objects. */
export function jsonForm(form: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(form).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
}
