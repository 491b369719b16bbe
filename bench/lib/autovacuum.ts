// Autovacuum's work for a scratch database on a PostgreSQL server that runs with autovacuum off (this machine's
// runs so, its CI configuration; a deployment, and the embedded PostgreSQL, run it on). Without it a growing
// history's tables are never analyzed: the planner, with no statistics, reads a channel's latest messages through
// the realm's index (every message of the realm, then filtered) instead of the channel's, and the database's
// CPU per request grows with the history (bench/README.md, "mixed --ramp — the database's share"). The stand-in
// applies autovacuum's own rule, with the server's own settings: every `autovacuum_naptime`, each table whose
// dead rows, inserted rows or changed rows passed their thresholds is vacuumed and/or analyzed, throttled by the
// autovacuum cost settings, on one connection of its own (counted in the database's CPU like autovacuum's
// workers, which also serve the database).
import pgPromise from 'pg-promise';

const pgp = pgPromise();

export interface AutovacuumCounts {
  vacuums: number;
  analyzes: number;
}

export interface AutovacuumStandIn {
  readonly counts: AutovacuumCounts;
  /** One pass now (the tests' way in; the timer runs passes every naptime). */
  pass(): Promise<void>;
  stop(): Promise<void>;
}

/** A table's row counts since its last vacuum and analyze, and what autovacuum would do with it. */
const DUE_SQL = `
  SELECT s.relname,
    s.n_dead_tup > current_setting('autovacuum_vacuum_threshold')::float8
      + current_setting('autovacuum_vacuum_scale_factor')::float8 * greatest(c.reltuples, 0)
    OR s.n_ins_since_vacuum > current_setting('autovacuum_vacuum_insert_threshold')::float8
      + current_setting('autovacuum_vacuum_insert_scale_factor')::float8 * greatest(c.reltuples, 0) AS vacuum,
    s.n_mod_since_analyze > current_setting('autovacuum_analyze_threshold')::float8
      + current_setting('autovacuum_analyze_scale_factor')::float8 * greatest(c.reltuples, 0) AS analyze
  FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
  WHERE s.schemaname = 'public'
  ORDER BY s.relname`;

/**
 * Starts the stand-in on the database of `url` when its server has autovacuum off; null when it has it on (nothing
 * to stand in for). `force` starts it whatever the setting (the tests).
 */
export async function startAutovacuumStandIn(url: string, opts: { force?: boolean } = {}): Promise<AutovacuumStandIn | null> {
  // One connection kept open between passes (idleTimeoutMillis 0): the bench's CPU probes read backends by pid, and
  // a backend that closes in a window loses its figure.
  const db = pgp({ connectionString: url, max: 1, idleTimeoutMillis: 0, application_name: 'bench autovacuum stand-in' });
  db.$pool.on('error', () => undefined);
  const settings = await db.one(
    `SELECT current_setting('autovacuum') = 'on' AS on,
       extract(epoch FROM current_setting('autovacuum_naptime')::interval) AS naptime,
       current_setting('autovacuum_vacuum_cost_delay') AS delay,
       current_setting('autovacuum_vacuum_cost_limit')::int AS limit`,
  );
  if (settings.on && !opts.force) {
    await db.$pool.end();
    return null;
  }
  // Autovacuum's throttle (its cost limit -1 means vacuum_cost_limit's).
  const throttle = `SET vacuum_cost_delay = '${settings.delay === '-1' ? '0' : settings.delay}'` + (settings.limit > 0 ? `; SET vacuum_cost_limit = ${settings.limit}` : '');
  const counts: AutovacuumCounts = { vacuums: 0, analyzes: 0 };
  let running: Promise<void> = Promise.resolve();
  let stopped = false;

  async function onePass(): Promise<void> {
    await db.task(async (t) => {
      await t.none(throttle);
      const due = await t.any<{ relname: string; vacuum: boolean; analyze: boolean }>(DUE_SQL);
      for (const table of due) {
        if (stopped) return;
        if (!table.vacuum && !table.analyze) continue;
        const what = table.vacuum && table.analyze ? 'VACUUM (ANALYZE)' : table.vacuum ? 'VACUUM' : 'ANALYZE';
        await t.none(`${what} $1:name`, [table.relname]);
        if (table.vacuum) counts.vacuums++;
        if (table.analyze) counts.analyzes++;
      }
    });
  }
  // Passes never overlap; a timer's failed pass (the database dropped under it) is ignored.
  const pass = () => {
    const next = running.then(onePass);
    running = next.catch(() => undefined);
    return next;
  };

  const timer = setInterval(() => void pass().catch(() => undefined), Number(settings.naptime) * 1000);
  timer.unref();
  return {
    counts,
    pass,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
      await db.$pool.end();
    },
  };
}
