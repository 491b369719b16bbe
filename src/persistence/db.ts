// The database: pg-promise with one repository per aggregate attached to every connection and transaction.
import pgPromise, { type IDatabase, type IMain, type ITask } from 'pg-promise';
import { ChangesRepository } from './repos/changes.js';
import { EventQueuesRepository } from './repos/event-queues.js';
import { GroupsRepository } from './repos/groups.js';
import { RealmsRepository } from './repos/realms.js';
import { UsersRepository } from './repos/users.js';

export interface Repos {
  realms: RealmsRepository;
  users: UsersRepository;
  groups: GroupsRepository;
  changes: ChangesRepository;
  eventQueues: EventQueuesRepository;
}

export type Db = IDatabase<Repos> & Repos;
export type Tx = ITask<Repos> & Repos;

export interface Database {
  db: Db;
  pgp: IMain;
  close(): Promise<void>;
}

export type Connection = string | { host: string; port: number; user?: string; database?: string };

export function createDatabase(
  connection: Connection,
  opts: { max?: number; onIdleError?: (err: Error) => void } = {},
): Database {
  const pgp: IMain = pgPromise<Repos>({
    extend(obj: Repos & IDatabase<Repos>) {
      obj.realms = new RealmsRepository(obj, pgp);
      obj.users = new UsersRepository(obj, pgp);
      obj.groups = new GroupsRepository(obj, pgp);
      obj.changes = new ChangesRepository(obj, pgp);
      obj.eventQueues = new EventQueuesRepository(obj, pgp);
    },
  });
  const cn = typeof connection === 'string' ? { connectionString: connection } : connection;
  const db = pgp({ ...cn, max: opts.max ?? 10, connectionTimeoutMillis: 5000 }) as Db;
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
