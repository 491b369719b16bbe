// Muted users: muting marks the muted user's messages read for the muter (and new ones arrive read, see
// messages/send.ts); muted_users events carry the muter's whole list to the muter only.
import type { RealmEvent } from '../../bus/events.js';
import { errors } from '../../errors.js';
import type { CommandDef } from '../commands.js';
import { flagsEvent } from '../messages/flags.js';
import type { RealmState } from '../state.js';
import { actor, targetUser } from '../access/roles.js';

/** The user's mutes as register and the muted_users event give them. */
export function mutedUsersOf(state: RealmState, userId: number): { id: number; timestamp: number }[] {
  const mutes = state.people.mutes.get(userId);
  if (!mutes) return [];
  return [...mutes].map(([id, timestamp]) => ({ id, timestamp })).sort((a, b) => a.id - b.id);
}

export interface MuteInput {
  userId: number;
  mutedUserId: number;
  /** Seconds. */
  now: number;
}

type MuteResult = MuteInput & { read: number[] };

function check(state: RealmState, input: MuteInput): MuteInput {
  actor(state, input.userId);
  // Bots and deactivated users may be muted too (the reference allows them).
  targetUser(state, input.mutedUserId, { allowDeactivated: true });
  return input;
}

const mutedEvent = (state: RealmState, userId: number): RealmEvent => ({
  event: { kind: 'muted_users', mutedUsers: mutedUsersOf(state, userId) },
  users: [userId],
});

const mute: CommandDef<MuteInput, MuteInput, MuteResult> = {
  batchable: true,
  check(state, input) {
    if (input.userId === input.mutedUserId) throw errors.cannotMuteSelf();
    check(state, input);
    if (state.people.hasMuted(input.userId, input.mutedUserId)) throw errors.alreadyMuted();
    return input;
  },
  async write(t, p) {
    if (!(await t.mutedUsers.add(p.userId, p.mutedUserId, p.now))) throw errors.alreadyMuted();
    return { ...p, read: await t.userMessages.markReadFrom(p.userId, p.mutedUserId) };
  },
  apply(state, r) {
    let mutes = state.people.mutes.get(r.userId);
    if (!mutes) state.people.mutes.set(r.userId, (mutes = new Map()));
    mutes.set(r.mutedUserId, r.now);
  },
  // As in the reference: the muted user's messages are marked read first, then the list is announced.
  events: (state, r) => [...flagsEvent({ userId: r.userId, op: 'add', flag: 'read', changed: r.read }), mutedEvent(state, r.userId)],
};

const unmute: CommandDef<MuteInput, MuteInput, MuteInput> = {
  batchable: true,
  check(state, input) {
    check(state, input);
    if (!state.people.hasMuted(input.userId, input.mutedUserId)) throw errors.notMuted();
    return input;
  },
  async write(t, p) {
    if (!(await t.mutedUsers.remove(p.userId, p.mutedUserId))) throw errors.notMuted();
    return p;
  },
  apply(state, p) {
    state.people.mutes.get(p.userId)?.delete(p.mutedUserId);
  },
  events: (state, p) => [mutedEvent(state, p.userId)],
};

export const mutedUserCommands = { 'mutedUsers.mute': mute, 'mutedUsers.unmute': unmute };
