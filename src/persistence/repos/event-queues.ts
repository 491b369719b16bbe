// Dumps of live event queues across a restart.
import type { IDatabase } from 'pg-promise';

export class EventQueuesRepository {
  constructor(private db: IDatabase<unknown>) {}

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

  /** Every saved dump; a dump stays in the table until it is restored or dropped (`remove`). */
  all(): Promise<{ queueId: string; realmId: number; dump: Buffer }[]> {
    return this.db.map('SELECT queue_id, realm_id, dump FROM event_queue_dumps ORDER BY saved_at, queue_id', [], (r) => ({
      queueId: r.queue_id as string,
      realmId: r.realm_id as number,
      dump: r.dump as Buffer,
    }));
  }

  async remove(queueIds: string[]): Promise<void> {
    if (queueIds.length > 0) await this.db.none('DELETE FROM event_queue_dumps WHERE queue_id = ANY($1::text[])', [queueIds]);
  }
}
