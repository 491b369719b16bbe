// The database: pg-promise with one repository per aggregate attached to every connection and transaction.
import pgPromise, { type IDatabase, type IMain, type ITask } from 'pg-promise';
import { AttachmentsRepository } from './repos/attachments.js';
import { BotsRepository } from './repos/bots.js';
import { ImageAttachmentsRepository } from './repos/image-attachments.js';
import { ChangesRepository } from './repos/changes.js';
import { RealmEmojiRepository } from './repos/realm-emoji.js';
import { ChannelFoldersRepository } from './repos/channel-folders.js';
import { ChannelsRepository } from './repos/channels.js';
import { EventQueuesRepository } from './repos/event-queues.js';
import { AlertWordsRepository } from './repos/alert-words.js';
import { LinkifiersRepository } from './repos/linkifiers.js';
import { MessagesRepository } from './repos/messages.js';
import { ReactionsRepository } from './repos/reactions.js';
import { UserMessagesRepository } from './repos/user-messages.js';
import { GroupsRepository } from './repos/groups.js';
import { InvitesRepository } from './repos/invites.js';
import { OutboxRepository } from './repos/outbox.js';
import { EmailInvitesRepository } from './repos/email-invites.js';
import { PeopleRepository } from './repos/people.js';
import { PresenceRepository } from './repos/presence.js';
import { RealmsRepository } from './repos/realms.js';
import { SubscriptionsRepository } from './repos/subscriptions.js';
import { UserTopicsRepository } from './repos/user-topics.js';
import { UsersRepository } from './repos/users.js';
import { isQueryTimeout } from './errors.js';
import { DraftsRepository } from './repos/drafts.js';
import { NavigationViewsRepository } from './repos/navigation-views.js';
import { SavedSnippetsRepository } from './repos/saved-snippets.js';
import { ScheduledMessagesRepository } from './repos/scheduled-messages.js';
import { BotStorageRepository } from './repos/bot-storage.js';
import { MutedUsersRepository } from './repos/muted-users.js';
import { PlaygroundsRepository } from './repos/playgrounds.js';
import { ProfileFieldsRepository } from './repos/profile-fields.js';
import { PushTokensRepository } from './repos/push-tokens.js';
import { RealmExportsRepository } from './repos/realm-exports.js';
import { SocketTicketsRepository } from './repos/socket-tickets.js';

export interface Repos {
  realms: RealmsRepository;
  users: UsersRepository;
  groups: GroupsRepository;
  changes: ChangesRepository;
  attachments: AttachmentsRepository;
  imageAttachments: ImageAttachmentsRepository;
  realmEmoji: RealmEmojiRepository;
  channels: ChannelsRepository;
  subscriptions: SubscriptionsRepository;
  channelFolders: ChannelFoldersRepository;
  userTopics: UserTopicsRepository;
  people: PeopleRepository;
  bots: BotsRepository;
  presence: PresenceRepository;
  invites: InvitesRepository;
  outbox: OutboxRepository;
  emailInvites: EmailInvitesRepository;
  eventQueues: EventQueuesRepository;
  messages: MessagesRepository;
  userMessages: UserMessagesRepository;
  reactions: ReactionsRepository;
  alertWords: AlertWordsRepository;
  linkifiers: LinkifiersRepository;
  drafts: DraftsRepository;
  savedSnippets: SavedSnippetsRepository;
  navigationViews: NavigationViewsRepository;
  scheduledMessages: ScheduledMessagesRepository;
  profileFields: ProfileFieldsRepository;
  mutedUsers: MutedUsersRepository;
  playgrounds: PlaygroundsRepository;
  botStorage: BotStorageRepository;
  pushTokens: PushTokensRepository;
  realmExports: RealmExportsRepository;
  socketTickets: SocketTicketsRepository;
}

export type Db = IDatabase<Repos> & Repos & {
  /**
   * Set on a database whose every write must go through its `tx` (cluster mode's fencing checks the realm's lease at
   * the start of each transaction): no statement may commit by itself outside one.
   */
  readonly transactionsOnly?: boolean;
};
export type Tx = ITask<Repos> & Repos;

export interface Database {
  db: Db;
  pgp: IMain;
  close(): Promise<void>;
}

/** The part of a node-postgres client that dropConnection needs. */
interface PgClient {
  $connectionError?: Error;
  connection?: { stream?: { destroy(): void } };
}

/** A query that timed out still occupies its connection (node-postgres waits for its answer): the connection is
 *  closed and marked so pg-promise's release removes it from the pool instead of handing it to the next query. */
function dropConnection(client: PgClient, err: Error): void {
  client.$connectionError = err;
  client.connection?.stream?.destroy();
}

export type Connection = string | { host: string; port: number; user?: string; database?: string };

/** Told about every query and transaction (operators' metrics); it must be cheap and must not throw. */
export interface DbObserver {
  query(seconds: number): void;
  queryError(): void;
  /**
   * A transaction finished, or a tagged task (a realm batch written by one statement that commits by itself runs as
   * one: see runBatch); `tag` is what the caller passed to db.tx or db.task.
   */
  transaction(tag: unknown, seconds: number): void;
}

/** Attaches one repository per aggregate to `obj`: a connection, a transaction, or a ReadBatch (which offers only the
 *  read methods; a repository's write method called over it fails). */
export function attachRepos<T extends object>(obj: T): T & Repos {
  const o = obj as T & Repos;
  const q = obj as unknown as IDatabase<unknown>;
  o.realms = new RealmsRepository(q);
  o.users = new UsersRepository(q);
  o.groups = new GroupsRepository(q);
  o.changes = new ChangesRepository(q);
  o.attachments = new AttachmentsRepository(q);
  o.imageAttachments = new ImageAttachmentsRepository(q);
  o.realmEmoji = new RealmEmojiRepository(q);
  o.channels = new ChannelsRepository(q);
  o.subscriptions = new SubscriptionsRepository(q);
  o.channelFolders = new ChannelFoldersRepository(q);
  o.userTopics = new UserTopicsRepository(q);
  o.people = new PeopleRepository(q);
  o.bots = new BotsRepository(q);
  o.presence = new PresenceRepository(q);
  o.invites = new InvitesRepository(q);
  o.outbox = new OutboxRepository(q);
  o.emailInvites = new EmailInvitesRepository(q);
  o.eventQueues = new EventQueuesRepository(q);
  o.messages = new MessagesRepository(q);
  o.userMessages = new UserMessagesRepository(q);
  o.reactions = new ReactionsRepository(q);
  o.alertWords = new AlertWordsRepository(q);
  o.linkifiers = new LinkifiersRepository(q);
  o.drafts = new DraftsRepository(q);
  o.savedSnippets = new SavedSnippetsRepository(q);
  o.navigationViews = new NavigationViewsRepository(q);
  o.scheduledMessages = new ScheduledMessagesRepository(q);
  o.profileFields = new ProfileFieldsRepository(q);
  o.mutedUsers = new MutedUsersRepository(q);
  o.playgrounds = new PlaygroundsRepository(q);
  o.botStorage = new BotStorageRepository(q);
  o.pushTokens = new PushTokensRepository(q);
  o.realmExports = new RealmExportsRepository(q);
  o.socketTickets = new SocketTicketsRepository(q);
  return o;
}

export function createDatabase(
  connection: Connection,
  opts: {
    max?: number;
    onIdleError?: (err: Error) => void;
    observer?: DbObserver;
    queryTimeoutMs?: number;
    /** Names the pool's sessions in pg_stat_activity, so cancelQueries finds them. */
    applicationName?: string;
  } = {},
): Database {
  const observer = opts.observer;
  const pgp: IMain = pgPromise<Repos>({
    ...(observer && {
      receive: (e) => observer.query(((e.result as { duration?: number } | void)?.duration ?? 0) / 1000),
      transact: (e) => {
        if (e.ctx?.finish) observer.transaction(e.ctx.tag, (e.ctx.duration ?? 0) / 1000);
      },
      task: (e) => {
        if (e.ctx?.finish && e.ctx.tag !== undefined) observer.transaction(e.ctx.tag, (e.ctx.duration ?? 0) / 1000);
      },
    }),
    error(err, e) {
      observer?.queryError();
      if (isQueryTimeout(err) && e.client) dropConnection(e.client as unknown as PgClient, err as Error);
    },
    extend(obj: Repos & IDatabase<Repos>) {
      attachRepos(obj);
    },
  });
  const cn = typeof connection === 'string' ? { connectionString: connection } : connection;
  const db = pgp({
    ...cn,
    max: opts.max ?? 10,
    connectionTimeoutMillis: 5000,
    // A database that stops answering without closing the connection (a partition) fails queries instead of hanging them.
    query_timeout: opts.queryTimeoutMs,
    keepAlive: true,
    ...(opts.applicationName && { application_name: opts.applicationName }),
  }) as Db;
  // An idle connection the server terminates (restart, failover) must not crash the process; the pool
  // drops it and connects anew on the next query.
  db.$pool.on('error', (err) => opts.onIdleError?.(err));
  return {
    db,
    pgp,
    async close() {
      await db.$pool.end();
    },
  };
}

/** Cancels every query running in the sessions named `applicationName` (a pool's), through `db`, a connection
 *  outside that pool (whose connections may all be taken); returns how many were cancelled. */
export async function cancelQueries(db: IDatabase<unknown>, applicationName: string): Promise<number> {
  const rows = await db.any(
    `SELECT pg_cancel_backend(pid) FROM pg_stat_activity
      WHERE application_name = $1 AND state = 'active' AND pid <> pg_backend_pid()`,
    [applicationName],
  );
  return rows.length;
}
