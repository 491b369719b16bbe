// Cluster mode (NATS_URL set): several processes on one PostgreSQL. Each realm is written by one process at a time
// (owners.ts); the owner publishes each committed batch once, and every other process applies it to its copy of the
// realm's working set and delivers its events to the queues it holds; a poll for a queue held elsewhere is served by
// its holder; once-only work runs on the holder of the `singleton` lease.
import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { connect, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import type { Realms } from '../actors/realms.js';
import type { Config } from '../config.js';
import { ApiError, errors } from '../errors.js';
import type { QueuedEvent } from '../events/event-queue.js';
import type { RealmEvent } from '../bus/events.js';
import type { Logger } from '../log.js';
import type { ActorFilter, ActorRow, StateCount } from '../operators/actor-directory.js';
import type { ClusterView, NodeActors } from '../operators/live-feed.js';
import type { Db } from '../persistence/db.js';
import type { CommandRegistry } from '../realm/commands.js';
import { Leases } from './leases.js';
import { Assembler, decodeWhole } from './parts.js';
import { RECENT_MS, Replica } from './replica.js';
import type { RootInput } from '../actors/root.machine.js';
import { RealmOwnership, realmKey, realmOfKey, type PublishedBatch } from './owners.js';
import { answerOf, decode, encode, encodePollAnswer, isNoResponders, maxPayloadOf, respondSafely, valueOf, Subjects, type Answer, type PollAnswer, type QueueRequest } from './wire.js';

const SINGLETON = 'singleton';
/** How long an operator's cluster-wide actor listing waits for the other processes' answers: at most
 *  OPERATORS_WAIT_MS in all, and no longer than OPERATORS_STALL_MS after the last answer. */
const OPERATORS_WAIT_MS = 1000;
const OPERATORS_STALL_MS = 150;
/** Longest a request waits for the realm owner's position, then for this process to apply that far. */
const BARRIER_MS = 2000;

/** What the cluster needs of the process's own event queues. */
export interface LocalQueues {
  /** Events of a realm owned elsewhere, for the queues this process holds (`readBy`: Replica's). */
  deliver(realmId: number, events: RealmEvent[], readBy?: string): void;
  /** Events were missed (a gap in a realm's batches): that realm's queues here end, their clients register again. */
  dropRealm(realmId: number): void;
  /** As LongPolls.poll: `onAbort` is the hook for a client that goes away. */
  poll(queueId: string, userId: number, lastEventId: number, dontBlock: boolean, onAbort: (cb: () => void) => void): Promise<QueuedEvent[]>;
  /** Why a blocking poll of the queue was answered with no events, unless a newer poll or socket took the queue. */
  ended(queueId: string): PollAnswer['ended'];
  delete(queueId: string, userId: number): boolean;
  /** Whether this process holds the queue, for this user. */
  holds(queueId: string, userId: number): boolean;
}

export interface ClusterOptions {
  config: Config;
  db: Db;
  commands: CommandRegistry;
  log: Logger;
  /** Shared: each process tells the others what it took, every RATE_SHARE_MS (the HTTP layer's RateLimiter). */
  rateLimiter: { takenHere(): [string, string, number][]; spentElsewhere(family: string, key: string, n: number): void };
}

/** How often a process tells the others the rate-limit tokens it took. */
const RATE_SHARE_MS = 50;
/** Rate-limit takes per NATS message (keys are bounded: an IP, a user, an address). */
const RATE_TAKES_PER_MESSAGE = 1000;

/** A name safe in a NATS subject token and a queue ID's prefix. */
function token(s: string): string {
  return s.replace(/[^A-Za-z0-9_-]/g, '_');
}

export class Cluster implements ClusterView {
  readonly node: string;
  readonly subjects: Subjects;
  readonly leases: Leases;
  readonly owners: RealmOwnership;
  private realms!: Realms;
  private queues!: LocalQueues;
  private readonly subs: Subscription[] = [];
  /** This process's copy of the realms owned elsewhere. */
  private readonly replica: Replica;
  /** Batches published in parts (over NATS's max_payload), being put together. */
  private readonly parts = new Assembler();
  /** Requests waiting for this process to reach a realm's position (read barriers). */
  private readonly waiting = new Map<number, Set<{ epoch: number; seq: number; done: () => void }>>();
  private timer: NodeJS.Timeout | null = null;
  private rateTimer: NodeJS.Timeout | null = null;
  private ticking = false;
  private singleton = false;
  private onSingleton: (held: boolean) => void = () => undefined;
  private readonly pollTimeoutMs: number;
  /** Forwarded polls (by pollId) whose client is still there, answered by an abort; and the next pollId's number. */
  private readonly heldPolls = new Map<string, () => void>();
  private nextPoll = 1;
  /** NATS connected now (false between a disconnect and the reconnect). */
  private connected = true;
  /** performance.now() of the last lease round that reached the database. */
  private lastRound = performance.now();

  private constructor(private readonly nc: NatsConnection, private readonly opts: ClusterOptions) {
    const { config } = opts;
    this.node = token(`${config.cluster.node ?? `${hostname()}-${process.pid}`}-${randomBytes(3).toString('hex')}`);
    const name = config.cluster.name ?? createHash('sha256').update(config.databaseUrl ?? '').digest('hex').slice(0, 12);
    this.subjects = new Subjects(token(name));
    this.leases = new Leases(opts.db, this.node, config.cluster.leaseMs);
    this.owners = new RealmOwnership(nc, this.subjects, this.leases, config.cluster.commandTimeoutMs, opts.log);
    this.owners.caughtUp = (realmId) => this.caughtUp(realmId);
    this.replica = new Replica({
      commands: opts.commands,
      log: opts.log,
      stateIfLoaded: (realmId) => this.realms.stateIfLoaded(realmId),
      reload: (realmId) => this.realms.reload(realmId).then(() => this.realms.get(realmId)).then(() => undefined),
      deliver: (realmId, events, readBy) => this.queues.deliver(realmId, events, readBy),
      dropRealm: (realmId) => this.queues.dropRealm(realmId),
    });
    this.pollTimeoutMs = config.heartbeatMs + 15_000;
    void this.followConnection();
  }

  private async followConnection(): Promise<void> {
    for await (const s of this.nc.status()) {
      if (s.type === 'disconnect') this.connected = false;
      else if (s.type === 'reconnect') this.connected = true;
    }
  }

  private natsUp(): boolean {
    return this.connected && !this.nc.isClosed();
  }

  static async connect(opts: ClusterOptions): Promise<Cluster> {
    // noEcho: a process never receives what it published itself (its batches, its rate-limit tokens).
    const nc = await connect({ servers: opts.config.cluster.natsUrl!, name: 'palaver', maxReconnectAttempts: -1, noEcho: true });
    return new Cluster(nc, opts);
  }

  /** What the realm actors need: their fenced database, where their committed batches go, and their fresh loads. */
  rootHooks(): NonNullable<RootInput['cluster']> {
    return {
      dbFor: (realmId) => this.owners.fencedDb(this.opts.db, realmId),
      replicate: (realmId, applied, events, commitId) => this.owners.publish(this.node, realmId, applied, events, commitId),
      loaded: (realmId, state) => {
        if (this.replica.loaded(realmId, state)) return;
        // Batches of the load's time it cannot be brought up to (it took longer than the replica keeps them): this
        // working set is replaced by another load at once (failing this one would leave a claiming owner stuck).
        this.opts.log.warn({ realmId }, 'realm batches missed while loading: loading again');
        setImmediate(() => void this.realms.reload(realmId).catch(() => undefined));
      },
    };
  }

  /** Starts serving: batches of other owners, this process's queues, and the lease loop. */
  start(realms: Realms, queues: LocalQueues, onSingleton: (held: boolean) => void): void {
    this.realms = realms;
    this.owners.realms = realms;
    this.queues = queues;
    this.onSingleton = onSingleton;
    this.subs.push(this.nc.subscribe(this.subjects.batches('*'), { callback: (err, msg) => {
      if (!err) this.received(this.subjects.realmOfBatch(msg.subject), msg.data);
    } }));
    this.subs.push(this.nc.subscribe(this.subjects.queues(this.node), { callback: (err, msg) => {
      if (!err) void this.serveQueue(msg);
    } }));
    this.shareRateLimits();
    const every = Math.max(50, Math.floor(this.opts.config.cluster.leaseMs / 3));
    this.timer = setInterval(() => void this.tick(), every);
    void this.tick();
  }

  private shareRateLimits(): void {
    const { rateLimiter } = this.opts;
    const subject = this.subjects.rateLimits();
    rateLimiter.takenHere(); // from now on
    this.subs.push(
      this.nc.subscribe(subject, {
        callback: (err, msg) => {
          if (err) return;
          const m = decode<{ from: string; takes: [string, string, number][] }>(msg.data);
          if (m.from !== this.node) for (const [family, key, n] of m.takes) rateLimiter.spentElsewhere(family, key, n);
        },
      }),
    );
    this.rateTimer = setInterval(() => {
      const takes = rateLimiter.takenHere();
      // In messages of RATE_TAKES_PER_MESSAGE, each far below any max_payload (a take is a family, a key and a count).
      try {
        for (let i = 0; i < takes.length; i += RATE_TAKES_PER_MESSAGE) this.nc.publish(subject, encode({ from: this.node, takes: takes.slice(i, i + RATE_TAKES_PER_MESSAGE) }));
      } catch (err) {
        // NATS closing: the others miss these tokens (a limit may overshoot by them), never this process's failure.
        this.opts.log.warn({ err }, 'rate-limit tokens not shared');
      }
    }, RATE_SHARE_MS);
  }

  /** The holder of a queue, from its ID (QueueRegistry's processTag is this node's name). */
  holderOf(queueId: string): string {
    const colon = queueId.indexOf(':');
    const holder = colon > 0 ? queueId.slice(0, colon) : '';
    // Only a name this code makes (token()) may become part of a NATS subject.
    return /^[A-Za-z0-9_-]+$/.test(holder) ? holder : '';
  }

  isLocalQueue(queueId: string): boolean {
    return this.holderOf(queueId) === this.node;
  }

  /** GET /events for a queue another process holds; BAD_EVENT_QUEUE_ID when no process holds it. */
  async pollElsewhere(queueId: string, userId: number, lastEventId: number, dontBlock: boolean, onAbort: (cb: () => void) => void): Promise<PollAnswer> {
    const pollId = `${this.node}.${this.nextPoll++}`;
    // The request is published (synchronously) before any abort of it, so the holder receives them in that order.
    const asked = this.askHolder(queueId, { op: 'poll', pollId, queueId, userId, lastEventId, dontBlock });
    let answered = false;
    // The client went away: the holder lets the poll go at once rather than at its next heartbeat.
    onAbort(() => {
      const holder = this.holderOf(queueId);
      if (answered || !holder) return;
      try {
        this.nc.publish(this.subjects.queues(holder), encode({ op: 'abort', pollId } satisfies QueueRequest));
      } catch {
        // NATS closing: the holder answers the poll at its next heartbeat.
      }
    });
    try {
      return (await asked) as PollAnswer;
    } finally {
      answered = true;
    }
  }

  async deleteElsewhere(queueId: string, userId: number): Promise<boolean> {
    return (await this.askHolder(queueId, { op: 'delete', queueId, userId })) as boolean;
  }

  /** Whether the queue's holder (another process) holds it for this user; BAD_EVENT_QUEUE_ID when no process does. */
  async holdsElsewhere(queueId: string, userId: number): Promise<boolean> {
    return (await this.askHolder(queueId, { op: 'holds', queueId, userId })) as boolean;
  }

  private async askHolder(queueId: string, request: QueueRequest): Promise<unknown> {
    const holder = this.holderOf(queueId);
    if (!holder) throw errors.badEventQueueId(queueId);
    try {
      const reply = await this.nc.request(this.subjects.queues(holder), encode(request), { timeout: this.pollTimeoutMs });
      return valueOf(decode<Answer>(reply.data));
    } catch (err) {
      if (err instanceof ApiError) throw err;
      if (isNoResponders(err)) throw errors.badEventQueueId(queueId);
      throw errors.unavailable('The server holding this event queue did not answer');
    }
  }

  private async serveQueue(msg: { data: Uint8Array; respond(data: Uint8Array): boolean }): Promise<void> {
    const r = decode<QueueRequest>(msg.data);
    if (r.op === 'abort') {
      this.heldPolls.get(r.pollId)?.();
      return;
    }
    let data: Uint8Array;
    try {
      if (r.op === 'poll') data = encodePollAnswer(await this.servePoll(r), maxPayloadOf(this.nc));
      else data = encode({ ok: true, value: r.op === 'holds' ? this.queues.holds(r.queueId, r.userId) : this.queues.delete(r.queueId, r.userId) } satisfies Answer);
    } catch (err) {
      data = encode(answerOf(err));
    }
    respondSafely(msg, data, this.opts.log);
  }

  /** A forwarded poll. Its abort lets it go on the queue and answers it (unread) at once. Requests from one process
   *  arrive in the order it sent them, so an abort never comes before the poll it names is parked here. */
  private async servePoll(r: Extract<QueueRequest, { op: 'poll' }>): Promise<PollAnswer> {
    let letGo: (() => void) | undefined;
    const aborted = new Promise<QueuedEvent[]>((resolve) =>
      this.heldPolls.set(r.pollId, () => {
        letGo?.();
        resolve([]);
      }),
    );
    try {
      const events = await Promise.race([this.queues.poll(r.queueId, r.userId, r.lastEventId, r.dontBlock, (cb) => (letGo = cb)), aborted]);
      return events.length > 0 || r.dontBlock ? { events } : { events, ended: this.queues.ended(r.queueId) };
    } finally {
      this.heldPolls.delete(r.pollId);
    }
  }

  /**
   * The read barrier of a request on a process that does not own the realm: asks the owner where it is, and waits
   * (at most BARRIER_MS) until this process applied that far. Without an owner there is nothing to wait for.
   */
  private async caughtUp(realmId: number): Promise<void> {
    const at = await this.owners.position(realmId, BARRIER_MS);
    if (!at || at.seq === 0 || this.replica.reached(realmId, at)) return;
    let waiter!: { epoch: number; seq: number; done: () => void };
    const arrived = new Promise<void>((done) => (waiter = { ...at, done }));
    let set = this.waiting.get(realmId);
    if (!set) this.waiting.set(realmId, (set = new Set()));
    set.add(waiter);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([arrived, new Promise<void>((r) => (timer = setTimeout(r, BARRIER_MS)))]);
    clearTimeout(timer);
    set.delete(waiter);
  }

  /** A batch another process committed: applied to this process's copy of the realm, its events delivered here. */
  private received(realmId: number, data: Uint8Array): void {
    let b: PublishedBatch | null;
    try {
      b = decodeWhole<PublishedBatch>(this.parts, realmId, data);
    } catch (err) {
      this.opts.log.error({ realmId, err }, 'undecodable realm batch');
      return;
    }
    // A part of a batch whose other parts are still to come.
    if (b === null) return;
    if (b.from === this.node || this.owners.owns(realmId)) return;
    const { ready } = this.replica.receive(realmId, b);
    const waiting = this.waiting.get(realmId);
    if (waiting) {
      for (const w of waiting) {
        if (this.replica.reached(realmId, w)) {
          waiting.delete(w);
          void ready.then(w.done);
        }
      }
    }
  }

  /** Renews leases, notices lost ones, takes over realms with no live owner, and keeps the singleton held. */
  private async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      // A quiet realm's last batches are not kept past the window either, nor a batch whose parts stopped coming.
      this.replica.sweep();
      this.parts.sweep(RECENT_MS);
      const lost = await this.leases.renew();
      this.lastRound = performance.now();
      for (const key of lost) {
        const realmId = realmOfKey(key);
        if (realmId !== null) await this.owners.lose(realmId);
        else if (key === SINGLETON) this.setSingleton(false);
      }
      // Served realms whose lease this process no longer trusts (renewals failing): stop writing them.
      for (const realmId of this.owners.owned()) if (!this.owners.owns(realmId)) await this.owners.lose(realmId);
      if (!this.singleton && (await this.leases.acquire(SINGLETON)) !== null) this.setSingleton(true);
      const unowned = await this.leases.unownedRealms();
      // Processes owning fewer realms claim first, so realms spread over the cluster.
      const wait = this.owners.owned().length * 100 + Math.random() * 100;
      if (unowned.length > 0) setTimeout(() => void this.claimSome(unowned), wait);
    } catch (err) {
      this.opts.log.warn({ err }, 'cluster lease round failed');
    } finally {
      this.ticking = false;
    }
  }

  private async claimSome(realmIds: number[]): Promise<void> {
    for (const id of realmIds) {
      if (this.timer === null) return;
      if (await this.owners.claim(id).catch(() => false)) return; // one per round: the others get their turn
    }
  }

  private setSingleton(held: boolean): void {
    if (this.singleton === held) return;
    this.singleton = held;
    this.opts.log.info({ held }, 'once-only work lease');
    this.onSingleton(held);
  }

  /**
   * Operators: every other process's actor rows that match `filter` (at most `limit` each) and its counts, as each
   * answers in time; this process's own rows are the caller's.
   */
  async actorsElsewhere(filter: ActorFilter, limit: number): Promise<NodeActors[]> {
    const out: NodeActors[] = [];
    const replies = await this.nc.requestMany(this.subjects.operators(), encode({ filter, limit }), {
      strategy: 'stall',
      stall: OPERATORS_STALL_MS,
      maxWait: OPERATORS_WAIT_MS,
    });
    for await (const reply of replies) out.push(decode(reply.data));
    return out;
  }

  /** Answers the other processes' actorsElsewhere with this process's rows and counts. */
  serveActors(directory: { list(filter: ActorFilter): ActorRow[]; counts(): StateCount[] }): void {
    this.subs.push(
      this.nc.subscribe(this.subjects.operators(), {
        callback: (err, msg) => {
          if (err) return;
          const { filter, limit } = decode<{ filter: ActorFilter; limit: number }>(msg.data);
          const rows = directory.list(filter);
          const answer: NodeActors = { node: this.node, actors: rows.slice(0, limit), matched: rows.length, counts: directory.counts() };
          respondSafely(msg, encode(answer), this.opts.log);
        },
      }),
    );
  }

  /** Operators: the owner of every live lease (realm ID → node; the once-only work's node). */
  async ownership(): Promise<{ realm_owners: Record<string, string>; once_only: string | null }> {
    const owners = await this.leases.owners();
    const realmOwners: Record<string, string> = {};
    for (const [key, owner] of owners) {
      const realmId = realmOfKey(key);
      if (realmId !== null) realmOwners[realmId] = owner;
    }
    return { realm_owners: realmOwners, once_only: owners.get(SINGLETON) ?? null };
  }

  /** Operators: this node, its NATS connection, and who owns what. */
  async overview(): Promise<{ node: string; nats: boolean; realm_owners: Record<string, string>; once_only: string | null }> {
    return { node: this.node, nats: this.natsUp(), ...(await this.ownership()) };
  }

  /**
   * Readiness: NATS is connected (commands, batches and polls travel over it), the lease rounds reach the database
   * (a process whose rounds fail would soon own nothing), and every realm this process serves is under a lease it
   * renewed in time.
   */
  readiness(): { ok: boolean; detail?: string } {
    if (this.nc.isClosed()) return { ok: false, detail: 'NATS connection closed' };
    if (!this.connected) return { ok: false, detail: 'NATS disconnected, reconnecting' };
    const since = performance.now() - this.lastRound;
    if (since > this.opts.config.cluster.leaseMs) return { ok: false, detail: `no lease round reached the database for ${Math.round(since)} ms` };
    const stale = this.owners.owned().filter((id) => this.leases.epochOf(realmKey(id)) === undefined);
    return stale.length ? { ok: false, detail: `realm leases not renewed: ${stale.join(', ')}` } : { ok: true, detail: `node ${this.node}, owns realms [${this.owners.owned().join(', ')}]` };
  }

  /** After the realm actors stopped: leases lapse for the others to take, then NATS closes. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.rateTimer) clearInterval(this.rateTimer);
    this.timer = null;
    for (const s of this.subs) s.unsubscribe();
    await this.owners.releaseAll().catch((err) => this.opts.log.warn({ err }, 'releasing leases failed'));
    this.setSingleton(false);
    await this.nc.drain().catch(() => undefined);
  }
}
