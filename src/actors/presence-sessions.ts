// This process's user-session actors, per realm: presence pings land here in memory; changed rows are written
// through the realm actor in one batch per interval (and at shutdown), so a ping never costs a database write.
import type { Actor } from 'xstate';
import type { RealmHandle } from './realms.js';
import { STOP_PHASE, type ActorHost } from './system.js';
import { isOffline, userSessionMachine, type UserSessionEmitted } from './user-session.machine.js';
import type { Db } from '../persistence/db.js';
import type { PresenceRow } from '../model/people.js';
import type { UserPresence } from '../realm/people/presence.js';
import { PRESENCE_EVENTS_USER_LIMIT } from '../limits.js';

export const PRESENCE_FLUSH_MS = 5_000;

type SessionActor = Actor<typeof userSessionMachine>;

class RealmSessions {
  readonly sessions = new Map<number, SessionActor>();
  readonly dirty = new Set<number>();
  sequence = 0;
  constructor(public handle: RealmHandle) {}
}

export interface PresenceSessionsOptions {
  flushMs?: number;
  /** Seconds clock. */
  now?: () => number;
  onError?: (err: unknown) => void;
  /** Most users a presence event goes to (Config.presenceEventsUserLimit); PRESENCE_EVENTS_USER_LIMIT by default. */
  eventUserLimit?: number;
}

export class PresenceSessions {
  private readonly realms = new Map<number, Promise<RealmSessions>>();
  private timer: NodeJS.Timeout | null = null;
  /** Counters for tests and operations: pings received, flush commands sent, rows they carried. */
  readonly stats = { pings: 0, flushes: 0, rowsFlushed: 0 };

  /** `actors` creates the session actors (the server's actor system). */
  constructor(private readonly db: Db, private readonly actors: ActorHost, private readonly opts: PresenceSessionsOptions = {}) {}

  now(): number {
    return this.opts.now ? this.opts.now() : Math.floor(Date.now() / 1000);
  }

  /** Records a ping; when the user came online or became active, publishes a presence event through the realm actor. */
  async ping(realm: RealmHandle, userId: number, status: 'active' | 'idle'): Promise<void> {
    const rs = await this.forRealm(realm);
    rs.handle = realm;
    this.stats.pings++;
    const now = this.now();
    let online = false;
    const actor = this.session(rs, userId);
    const sub = actor.on('online', () => (online = true));
    actor.send({ type: 'PING', status, now });
    sub.unsubscribe();
    if (online) {
      const p = this.read(actor);
      await realm.dispatch('presence.announce', { ...p, serverTimestamp: Date.now() / 1000, userLimit: this.opts.eventUserLimit ?? PRESENCE_EVENTS_USER_LIMIT });
    }
  }

  /** Every known presence of a realm. */
  async all(realm: RealmHandle): Promise<UserPresence[]> {
    const rs = await this.forRealm(realm);
    return [...rs.sessions.values()].map((a) => this.read(a));
  }

  async of(realm: RealmHandle, userId: number): Promise<UserPresence | undefined> {
    const rs = await this.forRealm(realm);
    const a = rs.sessions.get(userId);
    return a && this.read(a);
  }

  /** Writes changed rows of every realm, one realm command (one statement) each. */
  async flush(): Promise<void> {
    for (const pending of this.realms.values()) {
      const rs = await pending;
      if (rs.dirty.size === 0) continue;
      const rows: PresenceRow[] = [];
      for (const id of rs.dirty) {
        const p = this.read(rs.sessions.get(id)!);
        rows.push({ userId: id, realmId: rs.handle.id, lastConnectedTime: p.lastConnected, lastActiveTime: p.lastActive, lastUpdateId: p.lastUpdateId });
      }
      rs.dirty.clear();
      try {
        await rs.handle.dispatch('presence.flush', rows);
        this.stats.flushes++;
        this.stats.rowsFlushed += rows.length;
      } catch (err) {
        // Not written: keep them for the next flush.
        for (const r of rows) rs.dirty.add(r.userId);
        throw err;
      }
    }
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.flush().catch((err) => this.opts.onError?.(err));
      void this.sweep();
    }, this.opts.flushMs ?? PRESENCE_FLUSH_MS);
    this.timer.unref();
  }

  /**
   * Takes offline the sessions past the threshold; returns how many. Only they get a SWEEP: an XState send to every
   * session cost 6 ms of the event loop per 2,000 sessions every 5 s, the check alone 0.2 ms.
   */
  async sweep(now: number = this.now()): Promise<number> {
    let swept = 0;
    for (const pending of this.realms.values()) {
      const rs = await pending.catch(() => null);
      for (const a of rs?.sessions.values() ?? []) {
        const snapshot = a.getSnapshot();
        if (snapshot.value === 'offline' || !isOffline(snapshot.context, now)) continue;
        a.send({ type: 'SWEEP', now });
        swept++;
      }
    }
    return swept;
  }

  /** Flushes what is pending (call before the realm actors stop) and stops every session actor. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush().catch((err) => this.opts.onError?.(err));
    for (const pending of this.realms.values()) {
      const rs = await pending.catch(() => null);
      rs?.sessions.forEach((a) => a.stop());
    }
    this.realms.clear();
  }

  private read(a: SessionActor): UserPresence {
    const c = a.getSnapshot().context;
    return { userId: c.userId, lastConnected: c.lastConnected, lastActive: c.lastActive, lastUpdateId: c.lastUpdateId };
  }

  private forRealm(handle: RealmHandle): Promise<RealmSessions> {
    let pending = this.realms.get(handle.id);
    if (!pending) {
      pending = this.load(handle);
      this.realms.set(handle.id, pending);
      pending.catch(() => this.realms.delete(handle.id));
    }
    return pending;
  }

  /** Restores the realm's sessions from the rows the last flush wrote. */
  private async load(handle: RealmHandle): Promise<RealmSessions> {
    const rs = new RealmSessions(handle);
    for (const row of await this.db.presence.forRealm(handle.id)) {
      rs.sequence = Math.max(rs.sequence, row.lastUpdateId);
      this.session(rs, row.userId, {
        lastConnected: row.lastConnectedTime,
        lastActive: row.lastActiveTime,
        lastUpdateId: row.lastUpdateId,
      });
    }
    return rs;
  }

  private session(rs: RealmSessions, userId: number, restored?: Omit<UserPresence, 'userId'>): SessionActor {
    let actor = rs.sessions.get(userId);
    if (actor) return actor;
    actor = this.actors.create(userSessionMachine, {
      id: `session:${rs.handle.id}:${userId}`,
      stopPhase: STOP_PHASE.feeders,
      input: { userId, realmId: rs.handle.id, nextUpdateId: () => ++rs.sequence, ...restored },
    });
    actor.on('changed', (e: Extract<UserSessionEmitted, { type: 'changed' }>) => rs.dirty.add(e.userId));
    actor.start();
    rs.sessions.set(userId, actor);
    return actor;
  }
}
