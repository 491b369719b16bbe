// Realm ownership in a cluster: which realms this process writes, taken and kept through leases (leases.ts), their
// commands served to the other processes over NATS request/reply, commands for realms owned elsewhere sent to their
// owner, and every realm write transaction fenced by the lease's epoch.
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { RealmOwners, Realms } from '../actors/realms.js';
import type { BatchReplicator } from '../actors/realm.machine.js';
import type { Logger } from '../log.js';
import type { Db, Tx } from '../persistence/db.js';
import { isRealmBatchTag } from '../realm/batch.js';
import { fencedError, isFenced, type Leases } from './leases.js';
import { partsOf } from './parts.js';
import type { CommandInput, CommandKind, CommandResult } from '../realm/registry.js';
import { answerOf, decode, encode, encodeBatch, isNoResponders, maxPayloadOf, noOwnerInTime, respondSafely, valueOf, type Answer, type CommandMessage, type Subjects } from './wire.js';

/** The command that replaces the working set: its result is not sent; a receiver reloads from the database. */
const RELOAD: CommandKind = 'realm.reload';

const REALM_KEY = 'realm:';
export const realmKey = (realmId: number): string => `${REALM_KEY}${realmId}`;
/** The realm a lease key names (realmKey's inverse), or null for another lease (the singleton). */
export const realmOfKey = (key: string): number | null => (key.startsWith(REALM_KEY) ? Number(key.slice(REALM_KEY.length)) : null);

/** A committed batch as the owner publishes it: `seq` counts the owner's batches of the realm under `epoch`. */
export interface PublishedBatch {
  from: string;
  epoch: number;
  seq: number;
  /** The batch's transaction ID (null when it wrote nothing): replicas skip a batch their working set's snapshot holds. */
  commitId: string | null;
  /** [command kind, result] for each result memory applied; a null result: the receiver reloads the working set. */
  applied: [string, unknown][];
  events: Parameters<BatchReplicator>[2];
}

/** Work of RealmOwnership.services on its way to the realm's owner. */
interface ServiceMessage {
  service: string;
  input: unknown;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class RealmOwnership implements RealmOwners {
  /** Realms this process owns and serves (lease held, working set fresh, commands subscribed). */
  private readonly served = new Map<number, { subs: Subscription[]; seq: number; epoch: number }>();
  private readonly claims = new Map<number, Promise<boolean>>();
  realms!: Realms;
  /**
   * Work other than realm commands that belongs on a realm's owner (presence sessions): by name, called on the
   * owner with what call() was given.
   */
  readonly services = new Map<string, (realmId: number, input: any) => Promise<unknown>>();

  constructor(
    private readonly nc: NatsConnection,
    private readonly subjects: Subjects,
    private readonly leases: Leases,
    private readonly commandTimeoutMs: number,
    private readonly log: Logger,
  ) {}

  owns(realmId: number): boolean {
    return this.served.has(realmId) && this.leases.epochOf(realmKey(realmId)) !== undefined;
  }

  owned(): number[] {
    return [...this.served.keys()];
  }

  /** Takes a realm whose lease is free or lapsed: its working set is loaded afresh, then its commands are served. */
  claim(realmId: number): Promise<boolean> {
    let claim = this.claims.get(realmId);
    if (!claim) {
      claim = this.takeOver(realmId).finally(() => this.claims.delete(realmId));
      this.claims.set(realmId, claim);
    }
    return claim;
  }

  private async takeOver(realmId: number): Promise<boolean> {
    if (this.served.has(realmId)) return true;
    const epoch = await this.leases.acquire(realmKey(realmId));
    if (epoch === null) return false;
    // The copy this process kept may lag what the former owner committed last: load the realm again.
    await this.realms.reload(realmId);
    await this.realms.get(realmId);
    const commands = this.nc.subscribe(this.subjects.commands(realmId), {
      queue: 'owner',
      callback: (err, msg) => {
        if (!err) void this.serve(realmId, msg);
      },
    });
    const position = this.nc.subscribe(this.subjects.position(realmId), {
      queue: 'owner',
      callback: (err, msg) => {
        const s = this.served.get(realmId);
        if (!err && s && this.owns(realmId)) respondSafely(msg, encode({ epoch: s.epoch, seq: s.seq }), this.log);
      },
    });
    this.served.set(realmId, { subs: [commands, position], seq: 0, epoch });
    this.log.info({ realmId, epoch }, 'realm owned');
    return true;
  }

  /** This process no longer owns the realm (lease lost or fenced): stop serving it and keep a fresh copy. */
  async lose(realmId: number): Promise<void> {
    const s = this.served.get(realmId);
    this.leases.forget(realmKey(realmId));
    if (!s) return;
    this.served.delete(realmId);
    for (const sub of s.subs) sub.unsubscribe();
    this.log.warn({ realmId, epoch: s.epoch }, 'realm ownership lost');
    await this.realms.reload(realmId);
  }

  /** Graceful stop: the owned realms' writers have stopped; their leases lapse now for another process to take. */
  async releaseAll(): Promise<void> {
    for (const s of this.served.values()) for (const sub of s.subs) sub.unsubscribe();
    this.served.clear();
    await this.leases.releaseAll();
  }

  private async serve(realmId: number, msg: { data: Uint8Array; respond(data: Uint8Array): boolean }): Promise<void> {
    let answer: Answer;
    if (!this.owns(realmId)) answer = { ok: false, moved: true };
    else {
      try {
        const m = decode<CommandMessage | ServiceMessage>(msg.data);
        answer = { ok: true, value: 'service' in m ? await this.serviceHere(realmId, m.service, m.input) : await this.here(realmId, m.kind, m.input) };
      } catch (err) {
        answer = isFenced(err) ? { ok: false, moved: true } : answerOf(err);
      }
    }
    respondSafely(msg, encode(answer), this.log);
  }

  /**
   * A command for a realm this process does not own, to its owner (RealmOwners.dispatch). With no owner, this
   * process claims the realm (once its former owner's lease lapsed) and runs the command itself.
   */
  dispatch<K extends CommandKind>(realmId: number, kind: K, input: CommandInput<K>): Promise<CommandResult<K>> {
    const message: CommandMessage<K> = { kind, input };
    return this.request(realmId, message, () => this.here(realmId, kind, input)) as Promise<CommandResult<K>>;
  }

  /** Work of `services` (presence) for a realm, done on its owner. */
  call(realmId: number, service: string, input: unknown): Promise<unknown> {
    const message: ServiceMessage = { service, input };
    return this.request(realmId, message, () => this.serviceHere(realmId, service, input));
  }

  /**
   * Sends `message` to the realm's owner, or runs `here` when this process owns it. Asked again only when the
   * message surely was not acted on (no responder, or the addressee no longer owned the realm); a timeout is 503.
   */
  private async request(realmId: number, message: CommandMessage | ServiceMessage, here: () => Promise<unknown>): Promise<unknown> {
    const deadline = performance.now() + this.commandTimeoutMs;
    const data = encode(message);
    for (;;) {
      if (this.owns(realmId)) return here();
      const left = deadline - performance.now();
      if (left <= 0) throw noOwnerInTime();
      let reply;
      try {
        reply = await this.nc.request(this.subjects.commands(realmId), data, { timeout: left });
      } catch (err) {
        if (!isNoResponders(err)) throw noOwnerInTime();
        if (!(await this.claim(realmId).catch(() => false))) await sleep(Math.min(100, left));
        continue;
      }
      const answer = decode<Answer>(reply.data);
      if (!answer.ok && answer.moved) {
        await sleep(Math.min(50, left));
        continue;
      }
      return valueOf(answer);
    }
  }

  private async here<K extends CommandKind>(realmId: number, kind: K, input: CommandInput<K>): Promise<CommandResult<K>> {
    return (await this.realms.get(realmId)).dispatchHere(kind, input);
  }

  private serviceHere(realmId: number, service: string, input: unknown): Promise<unknown> {
    const run = this.services.get(service);
    if (!run) throw new Error(`unknown cluster service ${service}`);
    return run(realmId, input);
  }

  /** Where the realm's owner is in its batches now: { epoch, seq }, or null when no owner answers. */
  async position(realmId: number, timeoutMs: number): Promise<{ epoch: number; seq: number } | null> {
    try {
      const reply = await this.nc.request(this.subjects.position(realmId), encode(null), { timeout: timeoutMs });
      return decode<{ epoch: number; seq: number }>(reply.data);
    } catch {
      return null;
    }
  }

  /** Set by the cluster: resolves once this process applied the owner's batches up to the position it reported. */
  caughtUp: (realmId: number) => Promise<void> = async () => undefined;

  /** The database a realm actor writes through: every transaction first checks the realm's lease (fencing). */
  fencedDb(db: Db, realmId: number): Db {
    const key = realmKey(realmId);
    const tx = (...args: unknown[]) => {
      const cb = args.pop() as (t: Tx) => Promise<unknown>;
      const tag = (args[0] as { tag?: unknown } | undefined)?.tag;
      const epoch = this.leases.epochOf(key);
      if (epoch === undefined || !this.served.has(realmId)) return Promise.reject(fencedError());
      const fenced = async (t: Tx) => {
        try {
          const commitId = await this.leases.fence(t, key, epoch);
          // A realm batch's transaction: its ID travels with the batch (replica.ts).
          if (isRealmBatchTag(tag)) tag.commitId = commitId;
        } catch (err) {
          if (isFenced(err)) void this.lose(realmId);
          throw err;
        }
        return cb(t);
      };
      return args.length > 0 ? (db.tx as (o: unknown, cb: unknown) => Promise<unknown>)(args[0], fenced) : db.tx(fenced);
    };
    return Object.create(db, { tx: { value: tx }, transactionsOnly: { value: true } }) as Db;
  }

  /** The owner's side of replication: each committed batch, once, on the realm's subject. */
  publish(from: string, realmId: number, applied: { kind: string; value: unknown }[], events: PublishedBatch['events'], commitId: string | null): void {
    const s = this.served.get(realmId);
    if (!s) return;
    s.seq++;
    const batch: PublishedBatch = { from, epoch: s.epoch, seq: s.seq, commitId, applied: applied.map((a) => [a.kind, a.kind === RELOAD ? null : a.value]), events };
    let data: Uint8Array;
    try {
      data = encodeBatch(batch);
    } catch (err) {
      // A result the wire cannot carry: the other processes reload the realm instead of applying it.
      this.log.warn({ realmId, err }, 'batch not encodable; replicas reload');
      data = encodeBatch({ ...batch, applied: [[RELOAD, null]] });
    }
    try {
      // A batch over the server's max_payload goes in parts (parts.ts), published one after another.
      const parts = partsOf(data, maxPayloadOf(this.nc), from, s.seq);
      if (parts.length > 1) this.log.info({ realmId, seq: s.seq, bytes: data.length, parts: parts.length }, 'batch published in parts');
      for (const part of parts) this.nc.publish(this.subjects.batches(realmId), part);
    } catch (err) {
      // NATS closed or refusing (shutdown): never the realm actor's failure. The replicas see the gap with the next
      // batch and reload the realm.
      this.log.error({ realmId, seq: s.seq, err }, 'batch not published');
    }
  }
}
