// The database ceiling: the raw PostgreSQL insert rate of the message write, with no server in between.
// Each transaction inserts `perTransaction` messages in one multi-row INSERT … RETURNING id and their
// user_messages rows (one per recipient) in a second one, as the send path writes them; `clients`
// connections do so in parallel for a while. It writes into the real tables of the run's own database (a
// scratch database, or the embedded one of a throwaway data directory), so indexes, the generated search
// vector and the foreign keys all cost what they cost the server.
import { backendCpu, backendCpuSince } from '../lib/backend-cpu.js';
import { closeDatabase, helpers, openDatabase, type BenchDb } from '../lib/database.js';
import type { Target } from '../lib/server.js';

export interface DbCeiling {
  messagesPerSecond: number;
  userMessagesPerSecond: number;
  clients: number;
  perTransaction: number;
  recipients: number;
  seconds: number;
  /** CPU seconds the database's backends spent on it (when a monitoring connection was given). */
  databaseCpuSeconds: number | null;
}

const messageColumns = new helpers.ColumnSet(
  ['realm_id', 'sender_id', 'recipient_kind', 'stream_id', 'topic', 'content', 'rendered_content', 'recipient_id', 'sending_client'],
  { table: 'messages' },
);
const userMessageColumns = new helpers.ColumnSet(['user_id', 'message_id', 'flags'], { table: 'user_messages' });

export async function databaseCeiling(
  target: Target,
  where: { senderId: number; channelId: number; recipients: number[] },
  opts: { seconds: number; clients: number; perTransaction: number; monitor?: BenchDb },
): Promise<DbCeiling> {
  const clients = opts.clients;
  const db = openDatabase(target, clients);
  try {
    const cpuBefore = opts.monitor ? await backendCpu(opts.monitor) : null;
    const realmId = await db.one('SELECT realm_id FROM users WHERE id = $1', [where.senderId], (r) => r.realm_id as number);
    let messages = 0;
    const end = performance.now() + opts.seconds * 1000;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: clients }, async (_, c) => {
        let n = 0;
        while (performance.now() < end) {
          const rows = Array.from({ length: opts.perTransaction }, () => {
            const content = `ceiling ${c}-${n++}`;
            return {
              realm_id: realmId,
              sender_id: where.senderId,
              recipient_kind: 'stream',
              stream_id: where.channelId,
              topic: `ceiling ${c}`,
              content,
              rendered_content: `<p>${content}</p>`,
              recipient_id: 2 * where.channelId,
              sending_client: 'bench',
            };
          });
          await db.tx(async (t) => {
            const ids = await t.map(helpers.insert(rows, messageColumns) + ' RETURNING id', [], (r) => Number(r.id));
            const um = ids.flatMap((id) => where.recipients.map((u) => ({ user_id: u, message_id: id, flags: u === where.senderId ? 1 : 0 })));
            await t.none(helpers.insert(um, userMessageColumns));
          });
          messages += rows.length;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    // Read while its connections are open (their backends end with them).
    const databaseCpuSeconds = opts.monitor && cpuBefore ? backendCpuSince(cpuBefore, await backendCpu(opts.monitor)) : null;
    return {
      databaseCpuSeconds,
      messagesPerSecond: messages / seconds,
      userMessagesPerSecond: (messages * where.recipients.length) / seconds,
      clients,
      perTransaction: opts.perTransaction,
      recipients: where.recipients.length,
      seconds: +seconds.toFixed(2),
    };
  } finally {
    await closeDatabase(db);
  }
}
