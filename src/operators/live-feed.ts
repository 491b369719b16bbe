// What the dashboard's open connections receive: actor counts, the actors matching each one's filter, and the traffic
// series, pushed every second and soon after an actor changes. Inspection is attached only while one is open. In a
// cluster each push also carries every other node's actors and counts and which node owns which realm.
import { mergeCounts, type ActorDirectory, type ActorFilter, type ActorRow, type StateCount } from './actor-directory.js';
import type { Throughput } from './throughput.js';

/** One open dashboard connection, as the transport (src/http/live.ts) exposes it. */
export interface LiveClient {
  send(text: string): void;
}

/** One node's answer to an operator's question about its actors. */
export interface NodeActors {
  node: string;
  actors: ActorRow[];
  matched: number;
  counts: StateCount[];
}

/** Several nodes' answers as one: every row naming its node, the matches summed, the counts merged. */
export function mergeNodes(nodes: NodeActors[]): { actors: (ActorRow & { node: string })[]; matched: number; counts: StateCount[] } {
  return {
    actors: nodes.flatMap((n) => n.actors.map((a) => ({ ...a, node: n.node }))),
    matched: nodes.reduce((m, n) => m + n.matched, 0),
    counts: nodes.length === 1 ? nodes[0]!.counts : mergeCounts(nodes.map((n) => n.counts)),
  };
}

/** Cluster mode: what the other nodes hold, and who owns what (src/cluster/). */
export interface ClusterView {
  node: string;
  /** Every other node's rows matching `filter` (at most `limit` each) and its counts, as each answers in time. */
  actorsElsewhere(filter: ActorFilter, limit: number): Promise<NodeActors[]>;
  /** Realm ID → owning node, from the live leases; the node doing the once-only work. */
  ownership(): Promise<{ realm_owners: Record<string, string>; once_only: string | null }>;
}

export interface LiveSession {
  setFilter(filter: ActorFilter): void;
  close(): void;
}

/** Most actors one push lists; the dashboard says how many matched. */
export const MAX_ROWS = 200;
/** Seconds of traffic series in the first push; later pushes carry the last few seconds. */
const SERIES_SECONDS = 300;
const TAIL_SECONDS = 5;
const CHANGE_DEBOUNCE_MS = 100;

interface Session {
  client: LiveClient;
  filter: ActorFilter;
  first: boolean;
  /** Cluster mode: a push is waiting for the other nodes' answers; the next one is skipped meanwhile. */
  busy: boolean;
}

export class LiveFeed {
  private readonly sessions = new Set<Session>();
  private timer: NodeJS.Timeout | null = null;
  private pending: NodeJS.Timeout | null = null;
  private unwatch: (() => void) | null = null;
  private cluster: ClusterView | null = null;

  constructor(private readonly actors: ActorDirectory, private readonly throughput: Throughput, private readonly intervalMs = 1000) {}

  get size(): number {
    return this.sessions.size;
  }

  /** Cluster mode: pushes show every node. */
  showCluster(view: ClusterView): void {
    this.cluster = view;
  }

  open(client: LiveClient): LiveSession {
    const session: Session = { client, filter: {}, first: true, busy: false };
    this.sessions.add(session);
    if (this.sessions.size === 1) this.start();
    this.push(session);
    return {
      setFilter: (filter) => {
        session.filter = filter;
        this.push(session);
      },
      close: () => {
        if (this.sessions.delete(session) && this.sessions.size === 0) this.halt();
      },
    };
  }

  stop(): void {
    this.sessions.clear();
    this.halt();
  }

  private start(): void {
    this.unwatch = this.actors.watch(() => this.changed());
    this.timer = setInterval(() => this.pushAll(), this.intervalMs);
    this.timer.unref();
  }

  private halt(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.pending) clearTimeout(this.pending);
    this.timer = this.pending = null;
    this.unwatch?.();
    this.unwatch = null;
  }

  private changed(): void {
    if (this.pending) return;
    this.pending = setTimeout(() => {
      this.pending = null;
      this.pushAll();
    }, CHANGE_DEBOUNCE_MS);
    this.pending.unref();
  }

  private pushAll(): void {
    // The counts are the same for every connection: one walk of the actors, not one per connection.
    const counts = this.actors.counts();
    for (const s of this.sessions) this.push(s, counts);
  }

  private push(s: Session, counts = this.actors.counts()): void {
    const rows = this.actors.list(s.filter);
    const here: NodeActors = { node: this.cluster?.node ?? '', actors: rows.slice(0, MAX_ROWS), matched: rows.length, counts };
    if (!this.cluster) return this.send(s, here, [], null);
    if (s.busy) return;
    s.busy = true;
    const cluster = this.cluster;
    void Promise.all([cluster.actorsElsewhere(s.filter, MAX_ROWS), cluster.ownership()])
      .then(([others, ownership]) => this.sessions.has(s) && this.send(s, here, others, ownership))
      .catch(() => this.sessions.has(s) && this.send(s, here, [], null))
      .finally(() => (s.busy = false));
  }

  private send(s: Session, here: NodeActors, others: NodeActors[], ownership: Awaited<ReturnType<ClusterView['ownership']>> | null): void {
    const nodes = [here, ...others];
    // Rows name their node only in a cluster.
    const all = this.cluster ? mergeNodes(nodes) : here;
    const message = {
      type: 'update',
      at: new Date().toISOString(),
      counts: all.counts,
      matched: all.matched,
      actors: all.actors.slice(0, MAX_ROWS),
      series: this.throughput.series(s.first ? SERIES_SECONDS : TAIL_SECONDS),
      full_series: s.first,
      // Cluster mode: each node's actor total, and which node owns which realm.
      ...(this.cluster
        ? {
            node: here.node,
            nodes: nodes.map((n) => ({ node: n.node, actors: n.counts.reduce((m, c) => m + c.count, 0) })),
            realm_owners: ownership?.realm_owners ?? {},
            once_only: ownership?.once_only ?? null,
          }
        : {}),
    };
    s.first = false;
    s.client.send(JSON.stringify(message));
  }
}
