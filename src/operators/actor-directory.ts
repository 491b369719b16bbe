// Every live actor, for operators: the top-level actors are the actor system's (src/actors/system.ts), children are
// found through their parents' snapshots; one register() per actor kind says how its actors look. Records that are
// actors to operators without being XState actors (event queues: src/events/queue-registry.ts) come from plain
// sources beside. Transitions are recorded through XState's inspection hooks, and the plain sources' watch, only while
// somebody watches (attached then and detached after), so the hot path pays nothing otherwise.
import type { AnyActorRef } from 'xstate';
import { machineId, stateString, toSafeJson } from './actor-view.js';

export interface ActorKind {
  /** The machine id (`createMachine({ id })`) of this kind's actors. */
  kind: string;
  /** Work waiting for the actor in its own queue (XState's mailbox is always drained between events); 0 when omitted. */
  mailbox?: (snapshot: any) => number;
  /** The realm an actor belongs to; `context.realmId` when omitted. */
  realm?: (snapshot: any) => number | undefined;
  /** The actor's persisted form; XState's getPersistedSnapshot() when omitted. */
  persisted?: (actor: AnyActorRef) => unknown;
}

export interface Transition {
  from: string | null;
  to: string;
  event: string;
  at: string;
}

export interface ActorRow {
  id: string;
  kind: string;
  state: string;
  status: string;
  parent: string | null;
  children: string[];
  realm_id: number | null;
  mailbox: number;
  /** null when the state was entered before anybody watched. */
  time_in_state_ms: number | null;
  last_transition: Transition | null;
}

export interface ActorFilter {
  kind?: string;
  realm?: number;
  /** Matches the state and its substates: `ready` matches `ready.writing`. */
  state?: string;
  /** Substring of the actor id. */
  q?: string;
}

/** What a watcher is told: an actor appeared, changed state, or ended (stopped, done or failed). */
export interface ActorChange {
  type: 'started' | 'transition' | 'ended';
  id: string;
  kind: string;
  from: string | null;
  to: string;
  event: string;
  status: string;
}

export type ActorWatcher = (change: ActorChange) => void;

export interface StateCount {
  kind: string;
  state: string;
  count: number;
}

/** Sums the counts of several nodes by kind and state. */
export function mergeCounts(lists: StateCount[][]): StateCount[] {
  const sum = new Map<string, StateCount>();
  for (const list of lists) {
    for (const c of list) {
      const key = `${c.kind}\0${c.state}`;
      const had = sum.get(key);
      if (had) had.count += c.count;
      else sum.set(key, { ...c });
    }
  }
  return [...sum.values()];
}

interface Record_ {
  state: string;
  since: number | null;
  last: Transition | null;
}

interface InspectionEvent {
  type: string;
  actorRef: AnyActorRef;
  event?: { type: string };
  snapshot?: { value?: unknown; status?: string };
}

const MAX_DEPTH = 8;

/** A record operators see as an actor though no XState actor (an event queue: src/events/event-queue.ts). */
export interface PlainActor {
  readonly id: string;
  readonly kind: string;
  readonly state: string;
  readonly status: string;
  readonly realmId: number;
  /** Work waiting in it (an event queue's unacknowledged events). */
  readonly size: number;
}

/** Where plain actors come from (the event-queue registry). */
export interface PlainSource<A extends PlainActor = PlainActor> {
  all(): Iterable<A>;
  /** A live one by its operators' id. */
  find(id: string): A | undefined;
  persisted(actor: A): unknown;
  /** Reports each state change (`from` null: just made; an ended one with its final status) until the returned call. */
  watch(watcher: (actor: A, from: string | null, event: string) => void): () => void;
}

/** What operators look at: an XState actor or a plain one. */
export type Viewed = AnyActorRef | PlainActor;

function isPlain(v: Viewed): v is PlainActor {
  return typeof (v as AnyActorRef).getSnapshot !== 'function';
}

/** Where the top-level actors come from: the actor system. */
export interface ActorSource {
  actors(): Iterable<AnyActorRef>;
  get(id: string): AnyActorRef | undefined;
  /** Tells of each new top-level actor (so a watched one is attached at once); returns the unsubscribe. */
  onCreate(listener: (actor: AnyActorRef) => void): () => void;
}

export class ActorDirectory {
  private readonly kinds = new Map<string, ActorKind>();
  private readonly watchers = new Set<ActorWatcher>();
  private readonly plain: PlainSource[] = [];
  private records = new WeakMap<Viewed, Record_>();
  private attached = new WeakSet<object>();
  private inspections: { unsubscribe(): void }[] = [];
  private unlisten: (() => void) | null = null;

  constructor(private readonly source: ActorSource, private readonly now: () => number = Date.now) {}

  /** Says how one kind of actor looks (src/operators/kinds.ts). */
  register(kind: ActorKind): void {
    if (this.kinds.has(kind.kind)) throw new Error(`actor kind ${kind.kind} registered twice`);
    this.kinds.set(kind.kind, kind);
  }

  /** Adds a source of plain actors (the event queues); watched at once if somebody watches. */
  addPlain<A extends PlainActor>(source: PlainSource<A>): void {
    this.plain.push(source as unknown as PlainSource);
    if (this.watchers.size > 0) this.attachPlain(source as unknown as PlainSource);
  }

  /** Every live actor: the state-machine ones, parents before children, then the plain ones. */
  *all(): Generator<Viewed> {
    for (const actor of this.source.actors()) yield* this.walk(actor, 0);
    for (const source of this.plain) yield* source.all();
  }

  list(filter: ActorFilter = {}): ActorRow[] {
    const rows: ActorRow[] = [];
    for (const actor of this.all()) {
      const row = this.row(actor);
      if (matches(row, filter)) rows.push(row);
    }
    return rows;
  }

  /** A live actor by id: a top-level one straight from the actor system, a child by walking the tree. */
  find(id: string): Viewed | undefined {
    const top = this.source.get(id);
    if (top && machineId(top) !== undefined && top.getSnapshot().status !== 'stopped') return top;
    for (const source of this.plain) {
      const found = source.find(id);
      if (found) return found;
    }
    for (const actor of this.all()) if (actor.id === id) return actor;
    return undefined;
  }

  /** The work waiting in the mailboxes of every state-machine actor of a kind (a realm's: commands waiting for a batch). */
  waiting(kind: string): number {
    const mailbox = this.kinds.get(kind)?.mailbox;
    if (!mailbox) return 0;
    let n = 0;
    for (const top of this.source.actors()) for (const actor of this.walk(top, 0)) if (machineId(actor) === kind) n += mailbox(actor.getSnapshot());
    return n;
  }

  /** Live actors by kind and state. */
  counts(filter: ActorFilter = {}): StateCount[] {
    const by = new Map<string, StateCount>();
    for (const actor of this.all()) {
      const plain = isPlain(actor);
      const kind = plain ? actor.kind : machineId(actor)!;
      const state = plain ? actor.state : stateString(actor.getSnapshot().value);
      if (filter.kind !== undefined && kind !== filter.kind) continue;
      if (filter.realm !== undefined || filter.state !== undefined || filter.q !== undefined) {
        if (!matches(this.row(actor), filter)) continue;
      }
      const key = kind + '\u0000' + state;
      const c = by.get(key);
      if (c) c.count++;
      else by.set(key, { kind, state, count: 1 });
    }
    return [...by.values()].sort((a, b) => a.kind.localeCompare(b.kind) || a.state.localeCompare(b.state));
  }

  row(actor: Viewed): ActorRow {
    if (isPlain(actor)) {
      const rec = this.records.get(actor);
      return {
        id: actor.id,
        kind: actor.kind,
        state: actor.state,
        status: actor.status,
        parent: null,
        children: [],
        realm_id: actor.realmId,
        mailbox: actor.size,
        time_in_state_ms: rec && rec.state === actor.state && rec.since !== null ? this.now() - rec.since : null,
        last_transition: rec?.last ?? null,
      };
    }
    const snap = actor.getSnapshot();
    const kind = machineId(actor) ?? 'actor';
    const desc = this.kinds.get(kind);
    const state = stateString(snap.value);
    const rec = this.records.get(actor);
    const realm = desc?.realm ? desc.realm(snap) : snap.context?.realmId;
    return {
      id: actor.id,
      kind,
      state,
      status: snap.status,
      parent: actor._parent?.id ?? null,
      children: Object.keys(snap.children ?? {}),
      realm_id: typeof realm === 'number' ? realm : null,
      mailbox: desc?.mailbox ? desc.mailbox(snap) : 0,
      time_in_state_ms: rec && rec.state === state && rec.since !== null ? this.now() - rec.since : null,
      last_transition: rec?.last ?? null,
    };
  }

  /**
   * The actor's persisted snapshot, made safe for JSON (secrets redacted, size bounded). Without a kind's own
   * `persisted`, it has getPersistedSnapshot()'s shape built from the live snapshot: XState's own walk recurses
   * without end through contexts that hold a database handle.
   */
  persisted(actor: Viewed): unknown {
    if (isPlain(actor)) {
      const source = this.plain.find((s) => s.find(actor.id) === actor);
      return toSafeJson(source ? source.persisted(actor) : null);
    }
    const desc = this.kinds.get(machineId(actor) ?? '');
    if (desc?.persisted) return toSafeJson(desc.persisted(actor));
    const snap = actor.getSnapshot();
    const { status, value, context, historyValue, output, error } = snap;
    return toSafeJson({ status, value, context, children: Object.keys(snap.children ?? {}), historyValue, output, error });
  }

  get watching(): boolean {
    return this.watchers.size > 0;
  }

  /**
   * Records transitions while `onChange` is registered, calling it after each; returns the unwatch function.
   * A new top-level actor is attached, and reported as started, when the actor system creates it.
   */
  watch(onChange: ActorWatcher): () => void {
    this.watchers.add(onChange);
    if (this.watchers.size === 1) {
      for (const actor of this.all()) {
        if (isPlain(actor)) this.records.set(actor, { state: actor.state, since: null, last: null });
        else this.attach(actor, false);
      }
      this.unlisten = this.source.onCreate((actor) => this.attach(actor));
      for (const source of this.plain) this.attachPlain(source);
    }
    return () => {
      if (!this.watchers.delete(onChange) || this.watchers.size > 0) return;
      this.unlisten?.();
      this.unlisten = null;
      for (const s of this.inspections.splice(0)) s.unsubscribe();
      this.attached = new WeakSet();
      this.records = new WeakMap();
    };
  }

  private attach(actor: AnyActorRef, report = true): void {
    if (!this.records.has(actor)) {
      const snap = actor.getSnapshot();
      const state = stateString(snap.value);
      this.records.set(actor, { state, since: null, last: null });
      if (report) this.tell({ type: 'started', id: actor.id, kind: machineId(actor)!, from: null, to: state, event: '', status: snap.status });
    }
    const system = actor.system as { inspect(o: (e: InspectionEvent) => void): { unsubscribe(): void } };
    if (this.attached.has(system)) return;
    this.attached.add(system);
    this.inspections.push(system.inspect(this.observe));
  }

  private attachPlain(source: PlainSource): void {
    this.inspections.push({ unsubscribe: source.watch(this.observePlain) });
  }

  /** As for an XState actor created while watched (attach()): started, with no time in state until it changes. */
  private readonly observePlain = (actor: PlainActor, from: string | null, event: string): void => {
    if (from === null && !this.records.has(actor)) {
      this.records.set(actor, { state: actor.state, since: null, last: null });
      this.tell({ type: 'started', id: actor.id, kind: actor.kind, from: null, to: actor.state, event: '', status: actor.status });
      return;
    }
    this.record(actor, actor.kind, actor.state, actor.status, event, false);
  };

  private readonly observe = (e: InspectionEvent): void => {
    if (e.type !== '@xstate.snapshot' || !e.snapshot || machineId(e.actorRef) === undefined) return;
    const eventType = e.event?.type ?? '';
    const status = e.snapshot.status ?? 'active';
    this.record(e.actorRef, machineId(e.actorRef)!, stateString(e.snapshot.value), status, eventType, eventType === 'xstate.init');
  };

  /** One observed state (of an XState actor or a plain one): recorded, and told to the watchers when it changed. */
  private record(ref: Viewed, kind: string, state: string, status: string, eventType: string, started: boolean): void {
    const rec = this.records.get(ref);
    if (rec && rec.state === state && status === 'active') return; // the common case: nothing to record or tell
    const at = this.now();
    const change = { id: ref.id, kind, to: state, event: eventType, status };
    if (!rec) {
      const last = started ? { from: null, to: state, event: eventType, at: new Date(at).toISOString() } : null;
      this.records.set(ref, { state, since: started ? at : null, last });
      this.tell({ ...change, type: started ? 'started' : 'transition', from: null });
    } else if (rec.state !== state) {
      const from = rec.state;
      rec.last = { from, to: state, event: eventType, at: new Date(at).toISOString() };
      rec.state = state;
      rec.since = at;
      this.tell({ ...change, type: status === 'active' ? 'transition' : 'ended', from });
    } else if (status !== 'active') {
      this.tell({ ...change, type: 'ended', from: state });
    }
  }

  private tell(change: ActorChange): void {
    for (const w of this.watchers) w(change);
  }

  private *walk(actor: AnyActorRef, depth: number): Generator<AnyActorRef> {
    if (machineId(actor) === undefined || depth > MAX_DEPTH) return;
    const snap = actor.getSnapshot();
    if (snap.status === 'stopped') return;
    yield actor;
    for (const child of Object.values((snap.children ?? {}) as Record<string, AnyActorRef>)) {
      if (child) yield* this.walk(child, depth + 1);
    }
  }
}

function matches(row: ActorRow, f: ActorFilter): boolean {
  if (f.kind !== undefined && row.kind !== f.kind) return false;
  if (f.realm !== undefined && row.realm_id !== f.realm) return false;
  if (f.state !== undefined && row.state !== f.state && !row.state.startsWith(f.state + '.')) return false;
  if (f.q !== undefined && !row.id.toLowerCase().includes(f.q.toLowerCase())) return false;
  return true;
}
