// Dumps of live event queues across a restart.
import type { IDatabase, IMain } from 'pg-promise';

export class EventQueuesRepository {
  constructor(private db: IDatabase<unknown>, private pgp: IMain) {}

  /** Replaces all saved dumps with these. */
  async save(dumps: { queueId: string; realmId: number; userId: number; dump: Buffer }[]): Promise<void> {
    await this.db.tx(async (t) => {
      await t.none('DELETE FROM event_queue_dumps');
      for (const d of dumps) {
        await t.none('INSERT INTO event_queue_dumps (queue_id, realm_id, user_id, dump) VALUES ($1, $2, $3, $4)', [
          d.queueId, d.realmId, d.userId, d.dump,
        ]);
      }
    });
  }

  /** Takes every saved dump out of the table. */
  takeAll(): Promise<{ queueId: string; dump: Buffer }[]> {
    return this.db.map('DELETE FROM event_queue_dumps RETURNING queue_id, dump', [], (r) => ({
      queueId: r.queue_id as string,
      dump: r.dump as Buffer,
    }));
  }
}
