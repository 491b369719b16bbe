// How the rest of the server reaches realms: find one by host, wait for its actor, read its state, send it commands.
import { waitFor, type Actor } from 'xstate';
import { errors, notRunReason } from '../errors.js';
import { assertPlainData, type CommandPart } from '../realm/command-check.js';
import type { CommandRegistry, InputOf, ResultOf } from '../realm/commands.js';
import type { CommandInput, CommandKind, CommandResult, RealmCommands } from '../realm/registry.js';
import type { RealmState } from '../realm/state.js';
import type { RealmEntry } from '../model/realm.js';
import { submit } from './realm.machine.js';
import type { RealmRef, rootMachine } from './root.machine.js';

/** Cluster mode (src/cluster/): a realm this process does not own is written through its owner, elsewhere. */
export interface RealmOwners {
  owns(realmId: number): boolean;
  /**
   * A command sent to the realm's owner as dispatch was given it (the owner prepares it: what a prepare step makes
   * never travels); the owner's answer, or ApiError (503 when no owner answers in time).
   */
  dispatch<K extends CommandKind>(realmId: number, kind: K, input: CommandInput<K>): Promise<CommandResult<K>>;
  /** Resolves once this process's copy of the realm has every batch its owner had committed when asked. */
  caughtUp(realmId: number): Promise<void>;
}

/** Per realm and order key: settles once the last prepared command dispatched with that key entered the mailbox. */
type Lanes = Map<string, Promise<void>>;

/** A command's input as dispatch's arguments: optional for a command that takes none. */
type InputArgs<C extends CommandRegistry, K extends keyof C> = undefined extends InputOf<C, K> ? [input?: InputOf<C, K>] : [input: InputOf<C, K>];

/** A running realm actor. `C` is its registry: the server's (RealmCommands), or a test's own. */
export class RealmHandle<C extends CommandRegistry = RealmCommands> {
  /**
   * `checkData`: every input and answer is checked to be plain data (./command-check.ts), at a cost per command.
   * `owners` (cluster mode): a realm this process does not own is written through its owner. `successor`: the realm's
   * next handle once this actor stopped while the server runs (a reload: ownership moved), null when it is shutting
   * down; a command the stopping actor refused before any of it ran is sent there (or to the new owner).
   */
  constructor(
    readonly id: number,
    private ref: RealmRef,
    private lanes: Lanes,
    private checkData = false,
    private owners?: RealmOwners,
    private successor?: () => Promise<RealmHandle<C>> | null,
  ) {}

  /** The realm's working set: read it synchronously, never mutate it. */
  get state(): RealmState {
    return this.ref.getSnapshot().context.state!;
  }

  /**
   * Sends a command to the realm actor; resolves with its answer after its write committed. A command with a
   * prepare step (see CommandDef) is prepared first, outside the actor, and enters the mailbox after the earlier
   * commands of its order key did.
   */
  dispatch<K extends keyof C & string>(kind: K, ...[input]: InputArgs<C, K>): Promise<ResultOf<C, K>> {
    const sent = this.route(kind, input as InputOf<C, K>);
    if (!this.successor) return sent;
    return sent.catch((err: unknown) => {
      const next = notRunReason(err) === 'refused' ? this.successor!() : null;
      if (!next) throw err;
      return next.then((h) => (h.dispatch as (k: K, i: InputOf<C, K>) => Promise<ResultOf<C, K>>)(kind, input as InputOf<C, K>));
    });
  }

  private route<K extends keyof C & string>(kind: K, input: InputOf<C, K>): Promise<ResultOf<C, K>> {
    const owners = this.owners;
    // Cluster mode: a realm owned elsewhere is written by its owner.
    if (owners && !owners.owns(this.id)) {
      const remote = () => owners.dispatch(this.id, kind as CommandKind, input as never) as Promise<ResultOf<C, K>>;
      return this.checkData ? this.checked(kind, input as InputOf<C, K>, remote) : remote();
    }
    return this.dispatchHere(kind, input);
  }

  /** dispatch into this process's realm actor, whoever owns the realm (cluster mode: what another process sent its owner). */
  dispatchHere<K extends keyof C & string>(kind: K, input: InputOf<C, K>): Promise<ResultOf<C, K>> {
    return this.checkData ? this.checked(kind, input, () => this.run(kind, input)) : this.run(kind, input);
  }

  private async run<K extends keyof C & string>(kind: K, input: InputOf<C, K>): Promise<ResultOf<C, K>> {
    const def = this.ref.getSnapshot().context.commands[kind];
    if (!def?.prepare) return this.enqueue(kind, input);
    const key = `${this.id}:${def.orderKey?.(input) ?? kind}`;
    const prepared = def.prepare(this.state, input);
    const before = this.lanes.get(key);
    // Nothing to prepare and nothing of this key ahead of it: into the mailbox now, in dispatch order.
    if (!(prepared instanceof Promise) && !before) return this.enqueue(kind, prepared);
    if (prepared instanceof Promise) prepared.catch(() => undefined); // awaited below, after the turn of those ahead
    let release!: () => void;
    const lane = new Promise<void>((r) => (release = r));
    this.lanes.set(key, lane);
    try {
      await before;
      return this.enqueue(kind, await prepared);
    } finally {
      release();
      if (this.lanes.get(key) === lane) this.lanes.delete(key);
    }
  }

  private enqueue<K extends keyof C & string>(kind: K, input: InputOf<C, K>): Promise<ResultOf<C, K>> {
    return new Promise<ResultOf<C, K>>((resolve, reject) => {
      submit(this.ref, { kind, input, resolve: resolve as (r: unknown) => void, reject });
    });
  }

  /**
   * dispatch with its input and answer checked to be plain data. What a prepare step makes of the input is not:
   * it reads the working set, so it runs where the realm actor does, and never travels.
   */
  private async checked<K extends keyof C & string>(kind: K, input: InputOf<C, K>, run: () => Promise<ResultOf<C, K>>): Promise<ResultOf<C, K>> {
    this.assertPlain(kind, 'input', input);
    const answer = await run();
    this.assertPlain(kind, 'answer', answer);
    return answer;
  }

  /**
   * Fails loudly: the caller gets the error, and it is thrown again outside any caller, as an uncaught exception
   * that no caller's catch (a background job's log line) can hide.
   */
  private assertPlain(kind: string, part: CommandPart, value: unknown): void {
    try {
      assertPlainData(kind, part, value);
    } catch (err) {
      process.nextTick(() => {
        throw err;
      });
      throw err;
    }
  }
}

/** Distinct Host headers remembered (entryForHost). */
const HOST_CACHE_SIZE = 1000;

export class Realms {
  private readonly lanes: Lanes = new Map();

  /**
   * `checkCommands`: every command's input and answer is checked to be plain data (PALAVER_CHECK_COMMANDS).
   * `owners`: cluster mode (src/cluster/).
   */
  constructor(private root: Actor<typeof rootMachine>, private rootDomain: string, private checkCommands = false, private owners?: RealmOwners) {}

  get directory(): RealmEntry[] {
    return this.root.getSnapshot().context.directory;
  }

  /** Host header → the realm string id it names; cleared whole when full, so made-up hosts cannot grow it. */
  private readonly hostIds = new Map<string, string>();
  private indexed: { of: RealmEntry[] | null; map: Map<string, RealmEntry> } = { of: null, map: new Map() };
  /** The handle of each running realm actor, made once per actor rather than per request. */
  private readonly handles = new WeakMap<RealmRef, RealmHandle>();

  /** The realm a Host header names: the root domain (or any other host) is the default realm, `<sub>.<root>` a subdomain. */
  entryForHost(hostHeader: string | undefined): RealmEntry | undefined {
    const header = hostHeader ?? '';
    let stringId = this.hostIds.get(header);
    if (stringId === undefined) {
      const host = header.toLowerCase().replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
      const suffix = '.' + this.rootDomain;
      stringId = host.endsWith(suffix) ? host.slice(0, -suffix.length) : '';
      if (this.hostIds.size >= HOST_CACHE_SIZE) this.hostIds.clear();
      this.hostIds.set(header, stringId);
    }
    return this.byStringId().get(stringId);
  }

  /** The directory by string id, made again only when the root replaces its directory (every request looks here). */
  private byStringId(): Map<string, RealmEntry> {
    const directory = this.directory;
    if (this.indexed.of !== directory) this.indexed = { of: directory, map: new Map(directory.map((r) => [r.stringId, r])) };
    return this.indexed.map;
  }

  /** The handle of the realm a Host header names when its actor is running and loaded and nothing is to be waited for
   *  (cluster mode: this process owns it), synchronously; otherwise null, and forHost does the rest. Every request
   *  comes here first. */
  loadedForHost(hostHeader: string | undefined): RealmHandle | null {
    const entry = this.entryForHost(hostHeader);
    if (!entry || (this.owners && !this.owners.owns(entry.id))) return null;
    return this.loadedHandle(entry.id);
  }

  /** The handle of a realm whose actor is running and loaded, without a root transition or a waitFor; else null. */
  private loadedHandle(realmId: number): RealmHandle | null {
    const root = this.root.getSnapshot();
    if (root.value !== 'running') return null;
    const running = root.context.realms.get(realmId);
    if (!running) return null;
    const snap = running.getSnapshot();
    if (snap.status !== 'active' || snap.value === 'loading' || snap.value === 'failed') return null;
    return this.handleOf(realmId, running);
  }

  private handleOf(realmId: number, ref: RealmRef): RealmHandle {
    let handle = this.handles.get(ref);
    if (!handle) {
      // Once, not per command: the realm's next handle (after this actor has stopped) while the server runs, none once
      // it shuts down.
      const successor = () =>
        this.root.getSnapshot().value === 'running'
          ? waitFor(ref, (s) => s.status !== 'active', { timeout: 30_000 }).then(() => this.get(realmId))
          : null;
      this.handles.set(ref, (handle = new RealmHandle(realmId, ref, this.lanes, this.checkCommands, this.owners, successor)));
    }
    return handle;
  }

  /** A realm's working set if its actor is running and loaded, without starting one. */
  stateIfLoaded(realmId: number): RealmState | undefined {
    const ref = this.root.getSnapshot().context.realms.get(realmId);
    return ref?.getSnapshot().context.state ?? undefined;
  }

  /** A ready realm actor, spawned if needed. */
  async get(realmId: number): Promise<RealmHandle> {
    if (this.root.getSnapshot().value !== 'running') throw errors.shuttingDown();
    // Every request comes here: a realm already running and loaded needs no root transition and no waitFor
    // (its subscription and timer), only the handle.
    const loaded = this.loadedHandle(realmId);
    if (loaded) return loaded;
    for (let attempt = 0; ; attempt++) {
      let ref = this.ref(realmId);
      if (ref.getSnapshot().value === 'failed') {
        this.root.send({ type: 'REALM.RESTART', realmId });
        ref = this.ref(realmId);
      }
      const snap = await waitFor(ref, (s) => s.value !== 'loading', { timeout: 30_000 });
      // Stopped by reload() (cluster mode: ownership moved) while the server runs: a fresh actor loads it again.
      if (snap.status === 'done' && this.root.getSnapshot().value === 'running' && attempt < 3) {
        if (this.root.getSnapshot().context.realms.get(realmId) === ref) this.root.send({ type: 'REALM.RESTART', realmId });
        continue;
      }
      if (snap.value === 'failed' || snap.status === 'done') throw errors.unavailable('Realm could not be loaded');
      return this.handleOf(realmId, ref);
    }
  }

  async forHost(hostHeader: string | undefined): Promise<RealmHandle> {
    const entry = this.entryForHost(hostHeader);
    if (!entry) throw errors.invalidSubdomain();
    const handle = await this.get(entry.id);
    // Cluster mode: a request sees at least every write answered before it arrived, wherever that write was made.
    if (this.owners && !this.owners.owns(entry.id)) await this.owners.caughtUp(entry.id);
    return handle;
  }

  private ref(realmId: number): RealmRef {
    this.root.send({ type: 'REALM.ENSURE', realmId });
    return this.root.getSnapshot().context.realms.get(realmId)!;
  }

  /**
   * Cluster mode, when this process gains or loses a realm: its actor stops after its in-flight write (what waits in
   * its mailbox is refused), and the next get() loads the working set afresh from the database.
   */
  async reload(realmId: number, timeoutMs = 30_000): Promise<void> {
    const ref = this.root.getSnapshot().context.realms.get(realmId);
    if (!ref) return;
    ref.send({ type: 'STOP' });
    await waitFor(ref, (s) => s.status === 'done', { timeout: timeoutMs }).catch(() => undefined);
    if (this.root.getSnapshot().context.realms.get(realmId) === ref) this.root.send({ type: 'REALM.RESTART', realmId });
  }

  /** Stops every realm actor after its in-flight writes, then the root. */
  async stop(timeoutMs: number): Promise<void> {
    const refs = [...this.root.getSnapshot().context.realms.values()];
    this.root.send({ type: 'SHUTDOWN' });
    await Promise.all(
      refs.map((ref) => waitFor(ref, (s) => s.status === 'done', { timeout: timeoutMs }).catch(() => undefined)),
    );
    this.root.stop();
  }
}
