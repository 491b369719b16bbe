// CPU time of the PostgreSQL backends serving one database, from /proc (the database on this machine): what the
// database itself spends on a scenario's writes, beside the server's and the load generator's CPU. Background
// processes (WAL writer, checkpointer) serve every database on the server and are not counted.
import type { BenchDb } from './database.js';
import { sampleProcess } from './server.js';

/** CPU seconds (user + system) of each backend connected to `db`'s database, but the one asking. */
export async function backendCpu(db: BenchDb): Promise<Map<number, number>> {
  const pids = await db.map('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()', [], (r) => Number(r.pid));
  const out = new Map<number, number>();
  for (const pid of pids) {
    // null: gone meanwhile, or not on this machine.
    const sample = sampleProcess(pid);
    if (sample) out.set(pid, sample.cpuSeconds);
  }
  return out;
}

/** CPU seconds the backends spent between two reads; a backend new in the second read counts from its start. */
export function backendCpuSince(before: Map<number, number>, after: Map<number, number>): number {
  let sum = 0;
  for (const [pid, seconds] of after) sum += seconds - (before.get(pid) ?? 0);
  return sum;
}
