// The event router: takes what realm actors publish and delivers it to the live queues of its recipients,
// applying each queue's event_types, narrow, all_public_streams and client capabilities, one ENQUEUE per queue.
import type { ClientEvent } from '../actors/event-queue.machine.js';
import { eventForQueue } from './queue-form.js';
import { toWire } from './wire.js';
import { compilePredicate, parseNarrow, resolveNarrow, type NarrowMessage, type NarrowResolver } from '../narrow/index.js';
import type { EventHub } from '../bus/hub.js';
import { recipientId, type ClientCapability, type MessageFacts, type RealmEvent, type WireEvent } from '../bus/events.js';
import type { QueueRegistry } from './queue-registry.js';
import { wantsType, type QueueRegistration } from './registration.js';

interface LiveQueue {
  queueId: string;
  realmId: number;
  userId: number;
  registration: QueueRegistration;
  /** Register's narrow compiled to a predicate on message events; null when there is none. */
  narrow: ((msg: NarrowMessage) => boolean) | null;
  /** Messages up to this ID are in the queue's register snapshot: their events are not delivered to it. */
  messagesUpTo: number;
}

/** Builds a narrow resolver for a realm and user, from the realm's working set. */
export type ResolverFactory = (realmId: number, userId: number) => NarrowResolver;

/** Whether the user may still follow every public channel (Zulip's can_access_public_streams), asked at delivery. */
export type PublicAccessCheck = (realmId: number, userId: number) => boolean;

export class EventRouter {
  private readonly live = new Map<string, LiveQueue>();
  private readonly byUser = new Map<number, Set<LiveQueue>>();
  private readonly allPublic = new Map<number, Set<LiveQueue>>();
  private readonly unsubscribe: () => void;
  delivered = 0;

  constructor(
    hub: EventHub,
    private readonly queues: QueueRegistry,
    private readonly resolverFor: ResolverFactory,
    private readonly mayFollowAllPublic: PublicAccessCheck = () => true,
  ) {
    this.unsubscribe = hub.subscribe((realmId, events) => this.route(realmId, events));
    queues.on('expired', (e) => this.forget(e.queueId));
  }

  /**
   * Creates a queue for a user with a registration; returns its ID. `messagesUpTo`: the newest message its register
   * snapshot shows (the working set's newest, whose event was routed before this queue existed); an event of a
   * message up to it is not delivered to the queue (cluster mode: a batch a process's load already read, arriving
   * after it, or a former owner's last batch).
   */
  create(realmId: number, userId: number, registration: QueueRegistration, messagesUpTo = -1): string {
    const narrow = this.compileNarrow(realmId, userId, registration);
    const queueId = this.queues.create(userId, realmId, { registration: registration as never });
    this.track({ queueId, realmId, userId, registration, narrow, messagesUpTo });
    return queueId;
  }

  /** Re-attaches queues restored from a dump (their registrations travel with them). */
  restored(queueId: string, realmId: number, userId: number, registration: QueueRegistration): void {
    this.track({ queueId, realmId, userId, registration, narrow: this.compileNarrow(realmId, userId, registration), messagesUpTo: -1 });
  }

  /** Every queue the router delivers to. */
  liveQueues(): { queueId: string; realmId: number; userId: number }[] {
    return [...this.live.values()].map(({ queueId, realmId, userId }) => ({ queueId, realmId, userId }));
  }

  registrationOf(queueId: string): QueueRegistration | undefined {
    return this.live.get(queueId)?.registration;
  }

  stop(): void {
    this.unsubscribe();
  }

  private track(q: LiveQueue): void {
    this.live.set(q.queueId, q);
    let set = this.byUser.get(q.userId);
    if (!set) this.byUser.set(q.userId, (set = new Set()));
    set.add(q);
    if (q.registration.allPublicStreams) {
      let pub = this.allPublic.get(q.realmId);
      if (!pub) this.allPublic.set(q.realmId, (pub = new Set()));
      pub.add(q);
    }
  }

  private forget(queueId: string): void {
    const q = this.live.get(queueId);
    if (!q) return;
    this.live.delete(queueId);
    const set = this.byUser.get(q.userId);
    set?.delete(q);
    if (set?.size === 0) this.byUser.delete(q.userId);
    const pub = this.allPublic.get(q.realmId);
    pub?.delete(q);
    if (pub?.size === 0) this.allPublic.delete(q.realmId);
  }

  private compileNarrow(realmId: number, userId: number, reg: QueueRegistration): LiveQueue['narrow'] {
    if (reg.narrow.length === 0) return null;
    const terms = parseNarrow(reg.narrow);
    const resolved = resolveNarrow(terms, this.resolverFor(realmId, userId), { unknownChannel: 'match-nothing' });
    return compilePredicate(resolved, { id: userId });
  }

  route(realmId: number, events: RealmEvent[]): void {
    const batches = new Map<LiveQueue, ClientEvent[]>();
    for (const re of events) {
      const p: Published = { re, wire: toWire(re.event) };
      // Only an all_public_streams event needs to know who got it as a recipient.
      const seen = re.allPublicStreams ? new Set<LiveQueue>() : null;
      for (const r of re.users) {
        const queues = this.byUser.get(recipientId(r));
        if (!queues) continue;
        const flags = typeof r === 'number' ? undefined : r.flags;
        const copy = flags ? { ...p.wire, flags } : p.wire;
        for (const q of queues) {
          if (q.realmId !== realmId) continue;
          seen?.add(q);
          this.add(batches, q, p, copy, flags);
        }
      }
      if (re.allPublicStreams) {
        for (const q of this.allPublic.get(realmId) ?? []) {
          // A user demoted to guest since registering gets only what they receive as a recipient.
          if (!seen!.has(q) && this.mayFollowAllPublic(realmId, q.userId)) this.add(batches, q, p, { ...p.wire, flags: [] }, []);
        }
      }
    }
    for (const [q, evs] of batches) {
      const actor = this.queues.get(q.queueId);
      if (!actor) continue;
      actor.send({ type: 'ENQUEUE', events: evs });
      this.delivered += evs.length;
    }
  }

  private add(batches: Map<LiveQueue, ClientEvent[]>, q: LiveQueue, p: Published, event: ClientEvent, flags: string[] | undefined): void {
    if (p.re.event.kind === 'message') {
      // Already in the queue's snapshot (cluster mode: a batch its process's load had read, arriving after it).
      if ((p.re.event.message.id as number) <= q.messagesUpTo) return;
      if (q.narrow && !q.narrow(narrowMessage(p.re.event.facts, flags))) return;
    }
    const { re } = p;
    // The common case (no capability variants, not the sender's queue) without the adapt() array.
    if (!re.skipWith && !re.legacy && re.senderQueue?.queueId !== q.queueId) this.addOne(batches, q, event);
    else for (const e of this.adapt(q, p, event)) this.addOne(batches, q, e);
  }

  private addOne(batches: Map<LiveQueue, ClientEvent[]>, q: LiveQueue, e: ClientEvent): void {
    if (!wantsType(q.registration, e.type)) return;
    const shaped = eventForQueue(q.registration, e);
    const list = batches.get(q);
    if (list) list.push(shaped);
    else batches.set(q, [shaped]);
  }

  /** The form of an event this queue receives, given its capabilities. */
  private adapt(q: LiveQueue, p: Published, event: ClientEvent): ClientEvent[] {
    const { re } = p;
    if (re.skipWith && q.registration.capabilities[re.skipWith]) return [];
    let out: ClientEvent[] = [event];
    if (re.legacy) {
      for (const [cap, replacement] of Object.entries(re.legacy)) {
        if (!q.registration.capabilities[cap as ClientCapability]) {
          p.legacy ??= {};
          out = p.legacy[cap as ClientCapability] ??= (replacement ?? []).map(toWire);
          break;
        }
      }
    }
    if (re.senderQueue && re.senderQueue.queueId === q.queueId) {
      out = out.map((e) => ({ ...e, local_message_id: re.senderQueue!.localId }));
    }
    return out;
  }
}

/** A published event with its wire form, made once for all the queues (the legacy variants when first needed). */
interface Published {
  re: RealmEvent;
  wire: WireEvent;
  legacy?: Partial<Record<ClientCapability, WireEvent[]>>;
}

/** A message event's message as the narrow predicate sees it, with one recipient's flags. */
function narrowMessage(facts: MessageFacts, flags: string[] | undefined): NarrowMessage {
  return { ...facts, flags: new Set(flags), topicIsFollowed: false, topicIsMuted: false };
}
