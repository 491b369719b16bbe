// Runs the scheduled-delivery actor for the server: learns due times from the realms' scheduled_messages
// events and the database, and delivers each message through its realm actor (the send command).
import { createActor, waitFor, type Actor } from 'xstate';
import type { Realms } from '../../actors/realms.js';
import {
  scheduledDeliveryMachine,
  type DeliveryOutcome,
  type DueMessage,
  type ScheduledDeliveryInput,
} from '../../actors/scheduled-delivery.machine.js';
import type { Config } from '../../config.js';
import type { EventHub, RealmEvent } from '../../events/hub.js';
import { realmUrl } from '../../urls.js';
import type { Logger } from '../../log.js';
import type { Db } from '../../persistence/db.js';
import { isRefusal } from './deliver.commands.js';

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
  db: Db;
  realms: Realms;
  hub: EventHub;
  config: Config;
  log: Logger;
  clock?: DeliveryClock;
  tuning?: Pick<ScheduledDeliveryInput, 'resyncMs' | 'retryMs' | 'maxAttempts' | 'concurrency'>;
}

/** Where the events of scheduled messages and of reminders carry their records and IDs. */
const SCHEDULED_EVENT = { list: 'scheduled_messages', one: 'scheduled_message', id: 'scheduled_message_id' } as const;
const REMINDER_EVENT = { list: 'reminders', one: 'reminder', id: 'reminder_id' } as const;

export class ScheduledDelivery {
  private actor: Actor<typeof scheduledDeliveryMachine> | null = null;
  private unsubscribe: (() => void) | null = null;
  readonly clock: DeliveryClock;

  constructor(private opts: ScheduledDeliveryOptions) {
    this.clock = opts.clock ?? systemClock;
  }

  start(): void {
    const { db } = this.opts;
    this.actor = createActor(scheduledDeliveryMachine, {
      id: 'scheduled-delivery',
      clock: this.clock,
      input: {
        now: () => this.clock.now(),
        loadPending: async () => (await db.scheduledMessages.pending()).map((p) => ({ id: p.id, realmId: p.realmId, at: p.scheduledAt * 1000 })),
        deliver: (m, o) => this.deliver(m, o),
        ...this.opts.tuning,
      },
    });
    // Subscribed before start: nothing created meanwhile is missed (the load adds what memory lacks).
    this.unsubscribe = this.opts.hub.subscribe((realmId, events) => this.observe(realmId, events));
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

  /** The running actor, if started (operators' inspection). */
  actors(): Actor<typeof scheduledDeliveryMachine>[] {
    return this.actor ? [this.actor] : [];
  }

  /** Messages the actor is waiting to deliver, by ID → due time in milliseconds. */
  pending(): Map<number, number> {
    const due = this.actor?.getSnapshot().context.due ?? new Map<number, DueMessage>();
    return new Map([...due.values()].map((m) => [m.id, m.at]));
  }

  /** Keeps the actor's due times in step with the scheduled_messages and reminders events every realm publishes. */
  private observe(realmId: number, events: RealmEvent[]): void {
    for (const { event: e } of events) {
      const kind = e.type === 'scheduled_messages' ? SCHEDULED_EVENT : e.type === 'reminders' ? REMINDER_EVENT : null;
      if (!kind) continue;
      const records = e.op === 'add' ? (e[kind.list] as Record<string, any>[]) : e.op === 'update' ? [e[kind.one] as Record<string, any>] : [];
      for (const m of records) {
        if (m.failed) this.actor?.send({ type: 'UNSCHEDULE', id: m[kind.id] });
        else this.actor?.send({ type: 'SCHEDULE', id: m[kind.id], realmId, at: m.scheduled_delivery_timestamp * 1000 });
      }
      if (e.op === 'remove') this.actor?.send({ type: 'UNSCHEDULE', id: e[kind.id] as number });
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
