// Runs the scheduled-delivery actor for the server: learns due times from the realms' scheduled_messages
// events and the database, and delivers each message through its realm actor (the send command).
import { waitFor, type Actor } from 'xstate';
import type { Realms } from './realms.js';
import { STOP_PHASE, type ActorHost } from './system.js';
import {
  scheduledDeliveryMachine,
  type DeliveryOutcome,
  type DueMessage,
  type ScheduledDeliveryInput,
} from './scheduled-delivery.machine.js';
import type { Config } from '../config.js';
import type { EventHub } from '../bus/hub.js';
import type { RealmEvent } from '../bus/events.js';
import { realmUrl } from '../urls.js';
import type { Logger } from '../log.js';
import type { Db } from '../persistence/db.js';
import { isRefusal } from '../realm/scheduled/deliver.commands.js';

/** The actor's clock: `now` in milliseconds, and the timers XState schedules (an xstate SimulatedClock in tests). */
export interface DeliveryClock {
  now(): number;
  setTimeout(fn: (...args: unknown[]) => void, ms: number): unknown;
  clearTimeout(id: unknown): void;
}

const systemClock: DeliveryClock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (id) => clearTimeout(id as NodeJS.Timeout),
};

/** Reason stored when delivery kept failing for reasons outside the message (database, realm unavailable). */
export const GAVE_UP_REASON = 'The server could not send the message.';

export interface ScheduledDeliveryOptions {
  /** Creates the actor (the server's actor system). */
  actors: ActorHost;
  db: Db;
  realms: Realms;
  hub: EventHub;
  config: Config;
  log: Logger;
  clock?: DeliveryClock;
  tuning?: Pick<ScheduledDeliveryInput, 'resyncMs' | 'retryMs' | 'maxAttempts' | 'concurrency'>;
}

export class ScheduledDelivery {
  private actor: Actor<typeof scheduledDeliveryMachine> | null = null;
  private unsubscribe: (() => void) | null = null;
  readonly clock: DeliveryClock;

  constructor(private opts: ScheduledDeliveryOptions) {
    this.clock = opts.clock ?? systemClock;
  }

  start(): void {
    const { db } = this.opts;
    this.actor = this.opts.actors.create(scheduledDeliveryMachine, {
      id: 'scheduled-delivery',
      stopPhase: STOP_PHASE.feeders,
      clock: this.clock,
      input: {
        now: () => this.clock.now(),
        loadPending: async () => (await db.scheduledMessages.pending()).map((p) => ({ id: p.id, realmId: p.realmId, at: p.scheduledAt * 1000 })),
        deliver: (m, o) => this.deliver(m, o),
        ...this.opts.tuning,
      },
    });
    // Subscribed before start: nothing created meanwhile is missed (the load adds what memory lacks).
    this.unsubscribe = this.opts.hub.subscribe((realmId, events) => this.observe(realmId, events), 'scheduled delivery');
    this.actor.start();
  }

  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.actor?.send({ type: 'STOP' });
    this.actor?.stop();
  }

  /** Resolves once nothing is due and no delivery is running (tests use it after moving the clock). */
  async settled(timeout = 30_000): Promise<void> {
    const actor = this.actor!;
    await waitFor(actor, (s) => s.status !== 'active' || (s.matches('waiting') && ![...s.context.due.values()].some((m) => m.at <= this.clock.now())), {
      timeout,
    });
  }

  /** Messages the actor is waiting to deliver, by ID → due time in milliseconds. */
  pending(): Map<number, number> {
    const due = this.actor?.getSnapshot().context.due ?? new Map<number, DueMessage>();
    return new Map([...due.values()].map((m) => [m.id, m.at]));
  }

  /** Keeps the actor's due times in step with the scheduled-message and reminder events every realm publishes. */
  private observe(realmId: number, events: RealmEvent[]): void {
    for (const { event: e } of events) {
      if (e.kind !== 'scheduled_message' && e.kind !== 'reminder') continue;
      if (e.op === 'remove') {
        this.actor?.send({ type: 'UNSCHEDULE', id: e.id });
        continue;
      }
      const m = e.kind === 'reminder' ? e.reminder : e.message;
      if (m.failed) this.actor?.send({ type: 'UNSCHEDULE', id: m.id });
      else this.actor?.send({ type: 'SCHEDULE', id: m.id, realmId, at: m.scheduledAt * 1000 });
    }
  }

  /** One delivery attempt: read the row, hand it to the realm actor; refusals become failures with their reason. */
  private async deliver(m: DueMessage, { finalAttempt }: { finalAttempt: boolean }): Promise<DeliveryOutcome> {
    const { db, realms, config, log } = this.opts;
    let row;
    try {
      row = await db.scheduledMessages.byId(m.id);
      if (!row || row.delivered || row.failed) return 'done';
      const realm = await realms.get(row.realmId);
      const input = { message: row, realmUrl: realmUrl(config, realm.state.realm.stringId) };
      try {
        const r = await realm.dispatch('scheduled.deliver', input);
        if (r.kind === 'failed') log.info({ scheduledMessageId: m.id, reason: r.reason }, 'scheduled message failed');
        return 'done';
      } catch (err) {
        // The send's own write refused it (e.g. a conversation the sender may no longer start): a failure for good.
        if (!isRefusal(err)) throw err;
        await realm.dispatch('scheduled.fail', { message: row, reason: err.message });
        log.info({ scheduledMessageId: m.id, reason: err.message }, 'scheduled message failed');
        return 'done';
      }
    } catch (err) {
      log.warn({ err, scheduledMessageId: m.id, finalAttempt }, 'scheduled message delivery failed; will retry');
      if (!finalAttempt || !row) return 'retry';
      try {
        await (await realms.get(row.realmId)).dispatch('scheduled.fail', { message: row, reason: GAVE_UP_REASON });
        return 'done';
      } catch {
        return 'retry';
      }
    }
  }
}
