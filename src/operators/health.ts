// Readiness for orchestrators: the database answers, every migration is applied, the actors run, and the server is
// not draining. Liveness is simply that the process answers.
import { pendingMigrations } from '../persistence/migrate.js';
import type { Db } from '../persistence/db.js';
import type { ActorDirectory } from './actor-directory.js';

export interface Check {
  ok: boolean;
  detail?: string;
  ms?: number;
}

export interface Readiness {
  ready: boolean;
  checks: { database: Check; migrations: Check; actors: Check; accepting: Check } & Record<string, Check>;
}

/** How long the database may take to answer the probe. */
const DB_PROBE_MS = 2000;

export class Health {
  private draining = false;
  private readonly extra = new Map<string, () => Check>();

  constructor(private readonly db: Db, private readonly actors: ActorDirectory, private readonly probeMs = DB_PROBE_MS) {}

  /** A further check readiness requires (cluster mode: NATS and the realm leases). */
  addCheck(name: string, check: () => Check): void {
    this.extra.set(name, check);
  }

  /** Called first thing on shutdown: readiness fails so load balancers stop sending traffic. */
  drain(): void {
    this.draining = true;
  }

  async readiness(): Promise<Readiness> {
    const database = await this.database();
    const migrations: Check = database.ok ? await this.migrations() : { ok: false, detail: 'unknown while the database is unreachable' };
    const actors = this.actorsStarted();
    const accepting: Check = this.draining ? { ok: false, detail: 'shutting down' } : { ok: true };
    const checks: Readiness['checks'] = { database, migrations, actors, accepting };
    for (const [name, check] of this.extra) checks[name] = check();
    return { ready: Object.values(checks).every((c) => c.ok), checks };
  }

  private async database(): Promise<Check> {
    const started = performance.now();
    try {
      await withTimeout(this.db.one('SELECT 1 AS ok'), this.probeMs);
      return { ok: true, ms: Math.round((performance.now() - started) * 100) / 100 };
    } catch (err) {
      return { ok: false, detail: `database unreachable: ${(err as Error).message}` };
    }
  }

  private async migrations(): Promise<Check> {
    try {
      const pending = await withTimeout(pendingMigrations(this.db), this.probeMs);
      return pending === 0 ? { ok: true } : { ok: false, detail: `${pending} migrations not applied` };
    } catch (err) {
      return { ok: false, detail: `cannot read migrations: ${(err as Error).message}` };
    }
  }

  private actorsStarted(): Check {
    const root = this.actors.list({ kind: 'root' })[0];
    if (root?.state !== 'running') return { ok: false, detail: `root actor ${root ? root.state : 'missing'}` };
    const failed = this.actors.list({ kind: 'realm', state: 'failed' }).map((r) => r.id);
    return failed.length === 0 ? { ok: true } : { ok: false, detail: `realm actors failed to load: ${failed.join(', ')}` };
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
