// What the dashboard's open connections receive: actor counts, the actors matching each one's filter, and the traffic
// series, pushed every second and soon after an actor changes. Inspection is attached only while one is open.
import type { ActorDirectory, ActorFilter } from './actor-directory.js';
import type { Throughput } from './throughput.js';

/** One open dashboard connection, as the transport (src/http/live.ts) exposes it. */
export interface LiveClient {
  send(text: string): void;
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
}

export class LiveFeed {
  private readonly sessions = new Set<Session>();
  private timer: NodeJS.Timeout | null = null;
  private pending: NodeJS.Timeout | null = null;
  private unwatch: (() => void) | null = null;

  constructor(private readonly actors: ActorDirectory, private readonly throughput: Throughput, private readonly intervalMs = 1000) {}

  get size(): number {
    return this.sessions.size;
  }

  open(client: LiveClient): LiveSession {
    const session: Session = { client, filter: {}, first: true };
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
    const message = {
      type: 'update',
      at: new Date().toISOString(),
      counts,
      matched: rows.length,
      actors: rows.slice(0, MAX_ROWS),
      series: this.throughput.series(s.first ? SERIES_SECONDS : TAIL_SECONDS),
      full_series: s.first,
    };
    s.first = false;
    s.client.send(JSON.stringify(message));
  }
}
