// Fixtures for the messages tests: users of every role, channels made through the realm's own commands,
// sending over HTTP, and event queues read with dont_block.
import { createActor, waitFor } from 'xstate';
import { realmMachine, type RealmInput } from '../../src/actors/realm.machine.js';
import { RealmHandle } from '../../src/actors/realms.js';
import type { RealmEvent } from '../../src/bus/events.js';
import { EventHub } from '../../src/bus/hub.js';
import { createDatabase } from '../../src/persistence/db.js';
import type { CommandRegistry } from '../../src/realm/commands.js';
import { realmCommands, type CommandInput, type CommandKind } from '../../src/realm/registry.js';
import type { Credentials } from '../helpers/http.js';
import type { TestServer } from '../helpers/server.js';
import { addUser, type TestUser } from '../helpers/users.js';

export interface Cast {
  owner: TestUser;
  admin: TestUser;
  member: TestUser;
  other: TestUser;
  guest: TestUser;
}

export async function realmOf(s: TestServer) {
  return s.server.services.realms.forHost(undefined);
}

export async function ownerUser(s: TestServer): Promise<TestUser> {
  const realm = await realmOf(s);
  const u = realm.state.userByEmail(s.owner.email)!;
  return { ...s.owner, id: u.id, fullName: u.fullName, role: 100 };
}

let n = 0;
/** Fresh users for one test (tests run concurrently and must not see each other's messages). */
export async function makeCast(s: TestServer, tag = String(++n)): Promise<Cast> {
  return {
    owner: await ownerUser(s),
    admin: await addUser(s, { role: 200, fullName: `Admin ${tag}` }),
    member: await addUser(s, { role: 400, fullName: `Member ${tag}` }),
    other: await addUser(s, { role: 400, fullName: `Other ${tag}` }),
    guest: await addUser(s, { role: 600, fullName: `Guest ${tag}` }),
  };
}

let channelCounter = 0;
export function uniqueName(prefix = 'room'): string {
  return `${prefix} ${process.pid % 1000}-${++channelCounter}`;
}

export interface ChannelOptions {
  inviteOnly?: boolean;
  history?: boolean;
  topicsPolicy?: 'inherit' | 'allow_empty_topic' | 'disable_empty_topic' | 'empty_topic_only';
  groupSettings?: Record<string, unknown>;
}

/** Creates a channel (as the owner) with these subscribers; returns its ID. */
export async function makeChannel(s: TestServer, name: string, subscriberIds: number[], o: ChannelOptions = {}): Promise<number> {
  const realm = await realmOf(s);
  const owner = await ownerUser(s);
  await realm.dispatch('channels.create', {
    actorId: owner.id,
    name,
    description: '',
    subscriberIds,
    announce: false,
    settings: {
      inviteOnly: o.inviteOnly ?? false,
      isWebPublic: false,
      isDefault: false,
      historyPublicToSubscribers: o.history,
      topicsPolicy: o.topicsPolicy,
      groupSettings: o.groupSettings ?? {},
    },
    server: { realmUrl: `http://127.0.0.1:${s.port}`, webPublicStreamsEnabled: false },
  });
  return realm.state.channels.channelByName(name)!.id;
}

/** Subscribes users to an existing channel (as the owner, or `by`: a subscriber, for private channels). */
export async function subscribe(s: TestServer, name: string, userIds: number[], by?: { id: number }): Promise<void> {
  const realm = await realmOf(s);
  const actorId = by?.id ?? (await ownerUser(s)).id;
  await realm.dispatch('subscriptions.add', {
    actorId,
    channels: [{ name }],
    principals: userIds,
    authorizationErrorsFatal: true,
    announce: false,
    settings: { inviteOnly: false, isWebPublic: false, isDefault: false, groupSettings: {} },
    server: { realmUrl: `http://127.0.0.1:${s.port}`, webPublicStreamsEnabled: false },
  });
}

export async function unsubscribe(s: TestServer, name: string, userIds: number[]): Promise<void> {
  const realm = await realmOf(s);
  const owner = await ownerUser(s);
  await realm.dispatch('subscriptions.remove', { actorId: owner.id, names: [name], principals: userIds });
}

/** Sets realm settings (and permission groups) in the database and reloads the realm. */
export async function setRealm(s: TestServer, settings: Record<string, unknown>, groupSettings: Record<string, unknown> = {}): Promise<void> {
  const realm = await realmOf(s);
  await s.server.services.db.none(
    'UPDATE realms SET settings = settings || $2::jsonb, group_settings = group_settings || $3::jsonb WHERE id = $1',
    [realm.id, JSON.stringify(settings), JSON.stringify(groupSettings)],
  );
  await realm.dispatch('realm.reload');
}

export async function systemGroupId(s: TestServer, name: string): Promise<number> {
  return (await realmOf(s)).state.systemGroup(name).id;
}

export function send(s: TestServer, as: Credentials, form: Record<string, string>) {
  return s.client.as(as).post('/messages', { form });
}

/** Sends a message and returns its ID (fails loudly otherwise). */
export async function sendOk(s: TestServer, as: Credentials, form: Record<string, string>): Promise<number> {
  const r = await send(s, as, form);
  if (r.status !== 200) throw new Error(`send failed: ${r.text}`);
  return r.json.id as number;
}

export function dm(s: TestServer, as: Credentials, to: number[], content: string) {
  return sendOk(s, as, { type: 'direct', to: JSON.stringify(to), content });
}

export function post(s: TestServer, as: Credentials, channel: string | number, topic: string, content: string) {
  return sendOk(s, as, { type: 'stream', to: String(channel), topic, content });
}

export async function register(s: TestServer, as: Credentials, form: Record<string, string> = {}) {
  const r = await s.client.as(as).post('/register', { form });
  if (r.status !== 200) throw new Error(`register failed: ${r.text}`);
  return r.json;
}

/** The events queued so far (dont_block). */
export async function events(s: TestServer, as: Credentials, queueId: string): Promise<any[]> {
  const r = await s.client.as(as).get('/events', { query: { queue_id: queueId, last_event_id: '-1', dont_block: 'true' } });
  if (r.status !== 200) throw new Error(`events failed: ${r.text}`);
  return r.json.events.filter((e: { type: string }) => e.type !== 'heartbeat');
}

export async function getMessages(s: TestServer, as: Credentials, query: Record<string, unknown>) {
  const q: Record<string, string> = {};
  for (const [k, v] of Object.entries(query)) q[k] = typeof v === 'string' ? v : JSON.stringify(v);
  return s.client.as(as).get('/messages', { query: q });
}

/** Write transactions the realm actor has committed so far (group-commit tests count them). */
/**
 * A command's input after its prepare step (rendering on the worker pool), so that dispatching it again enters the
 * mailbox at once: a burst of prepared commands reaches the actor in one go, as group commit under load does.
 */
export async function prepared<K extends CommandKind>(realm: RealmHandle, kind: K, input: CommandInput<K>): Promise<CommandInput<K>> {
  const def = (realmCommands as CommandRegistry)[kind];
  return def?.prepare ? await def.prepare(realm.state, input) : input;
}

/** A command of any kind with its input (a burst of several kinds). */
export type AnyCommand = { [K in CommandKind]: [kind: K, input: CommandInput<K>] }[CommandKind];

export function batchesOf(realm: RealmHandle): number {
  return realm['ref'].getSnapshot().context.batches;
}

/**
 * A second realm actor for the test server's realm, over its database with a pool of its own (whose statements and
 * the actor's transactions `counted` counts) and an event hub of its own (`published`): for tests that count or hold
 * what its batches do. The server's own actor must not write after it started (its memory would lag).
 */
export async function ownRealmActor(s: TestServer, opts: Pick<RealmInput, 'idBlock'> & { transactionsOnly?: boolean } = {}) {
  if (!s.databaseUrl) throw new Error('needs DATABASE_URL');
  const counted = { statements: 0, transactions: 0 };
  const database = createDatabase(s.databaseUrl, { observer: { query: () => void counted.statements++, queryError: () => undefined, transaction: () => undefined } });
  const hub = new EventHub({ error: () => undefined });
  const published: RealmEvent[] = [];
  hub.subscribe((_realm, evs) => void published.push(...evs));
  const realmId = (await realmOf(s)).id;
  // Counts the transactions the actor opens; transactionsOnly: as the database a realm actor writes through in
  // cluster mode (RealmOwnership.fencedDb).
  const tx = (...args: unknown[]) => {
    counted.transactions++;
    return (database.db.tx as (...a: unknown[]) => unknown)(...args);
  };
  const db = Object.create(database.db, { tx: { value: tx }, transactionsOnly: { value: opts.transactionsOnly === true } }) as typeof database.db;
  const actor = createActor(realmMachine, { input: { realmId, db, hub, commands: realmCommands, idBlock: opts.idBlock } });
  actor.start();
  await waitFor(actor, (x) => x.matches('ready'));
  const handle = new RealmHandle(realmId, actor, new Map(), true);
  return {
    actor,
    handle,
    counted,
    published,
    database,
    close: async () => {
      actor.stop();
      await database.close();
    },
  };
}
