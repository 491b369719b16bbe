// CPU time of the PostgreSQL backends serving one database, from /proc (the database on this machine): what the
// database itself spends on a scenario's writes, beside the server's and the load generator's CPU. Background
// processes (WAL writer, checkpointer) serve every database on the server and are not counted.
import { readFileSync } from 'node:fs';
import type { BenchDb } from './database.js';

/** CPU seconds (user + system) of each backend connected to `db`'s database, but the one asking. */
export async function backendCpu(db: BenchDb): Promise<Map<number, number>> {
  const pids = await db.map('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()', [], (r) => Number(r.pid));
  const out = new Map<number, number>();
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(pid, (Number(fields[11]) + Number(fields[12])) / 100);
    } catch {
      // Gone meanwhile, or not on this machine.
    }
  }
  return out;
}

/** CPU seconds the backends spent between two reads; a backend new in the second read counts from its start. */
export function backendCpuSince(before: Map<number, number>, after: Map<number, number>): number {
  let sum = 0;
  for (const [pid, seconds] of after) sum += seconds - (before.get(pid) ?? 0);
  return sum;
}
