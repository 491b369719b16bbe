// The user-session actor: one user's presence. offline → idle ⇄ active (→ offline on a sweep after the threshold).
// Pings update timestamps in memory only; the actor emits `changed` (for the batched flush) and `online` (worth an event).
import { assign, emit, enqueueActions, setup } from 'xstate';
import { ACTIVE_OFFSET_S, OFFLINE_THRESHOLD_S, UPDATE_MIN_FREQ_S, type PresenceTimes } from '../realm/people/presence-times.js';

export interface UserSessionInput extends Partial<PresenceTimes> {
  userId: number;
  realmId: number;
  /** Hands out the realm's next presence update ID. */
  nextUpdateId: () => number;
}

export interface UserSessionContext extends PresenceTimes {
  userId: number;
  realmId: number;
  nextUpdateId: () => number;
}

export type UserSessionEvent = { type: 'PING'; status: 'active' | 'idle'; now: number } | { type: 'SWEEP'; now: number };
export type UserSessionEmitted = { type: 'changed'; userId: number } | { type: 'online'; userId: number };

function wasIdle(c: PresenceTimes): boolean {
  return c.lastActive + ACTIVE_OFFSET_S < c.lastConnected;
}

export function isOffline(c: PresenceTimes, now: number): boolean {
  return c.lastConnected === 0 || c.lastConnected + OFFLINE_THRESHOLD_S < now;
}

export const userSessionMachine = setup({
  types: {
    context: {} as UserSessionContext,
    input: {} as UserSessionInput,
    events: {} as UserSessionEvent,
    emitted: {} as UserSessionEmitted,
  },
  guards: {
    pingActive: ({ event }) => event.type === 'PING' && event.status === 'active',
    wentOffline: ({ context, event }) => isOffline(context, event.now),
  },
  actions: {
    record: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'PING') return;
      const { now, status } = event;
      const cameOnline = isOffline(context, now);
      const becameActive = status === 'active' && (context.lastActive === 0 || wasIdle(context));
      const touchConnected = cameOnline || now - context.lastConnected >= UPDATE_MIN_FREQ_S;
      const touchActive = status === 'active' && (becameActive || now - context.lastActive >= UPDATE_MIN_FREQ_S);
      if (!touchConnected && !touchActive) return;
      enqueue(
        assign({
          lastConnected: touchConnected ? now : context.lastConnected,
          lastActive: touchActive ? now : context.lastActive,
          lastUpdateId: context.nextUpdateId(),
        }),
      );
      enqueue(emit({ type: 'changed' as const, userId: context.userId }));
      if (cameOnline || becameActive) enqueue(emit({ type: 'online' as const, userId: context.userId }));
    }),
  },
}).createMachine({
  id: 'userSession',
  context: ({ input }) => ({
    userId: input.userId,
    realmId: input.realmId,
    nextUpdateId: input.nextUpdateId,
    lastConnected: input.lastConnected ?? 0,
    lastActive: input.lastActive ?? 0,
    lastUpdateId: input.lastUpdateId ?? 0,
  }),
  initial: 'offline',
  on: {
    PING: [
      { guard: 'pingActive', target: '.active', actions: 'record' },
      { target: '.idle', actions: 'record' },
    ],
  },
  states: {
    offline: {},
    idle: { on: { SWEEP: { guard: 'wentOffline', target: 'offline' } } },
    active: { on: { SWEEP: { guard: 'wentOffline', target: 'offline' } } },
  },
});
