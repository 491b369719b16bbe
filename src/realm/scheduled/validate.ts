// A scheduled message checked as a send would be (the send command's own check: addressing, permissions,
// content and topic rules, rendering), with the scheduling rules on top: IDs only, a time in the future.
import { errors } from '../../errors.js';
import type { NewScheduledMessage, ScheduledMessage } from '../../model/scheduled.js';
import type { Prerendered } from '../messages/render.js';
import { defaultReadBySender, sendMessage, type SendInput } from '../messages/send.js';
import type { RealmState } from '../state.js';

export type ScheduledType = 'stream' | 'private';

/** What a scheduled message says, before it is checked. `to`: a channel ID, or user IDs. */
export interface ScheduledDraft {
  type: ScheduledType;
  to: unknown;
  topic?: string;
  content: string;
}

/** The API's type names: `direct` and `private`, `channel` and `stream` mean the same. */
export function scheduledType(t: 'direct' | 'channel' | 'stream' | 'private'): ScheduledType {
  return t === 'direct' || t === 'private' ? 'private' : 'stream';
}

/** A channel ID (or a list of exactly one); names are refused. */
function channelIdOf(to: unknown): number {
  const v = Array.isArray(to) && to.length === 1 ? to[0] : to;
  if (Array.isArray(v)) throw errors.expectedOneChannel();
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw errors.scheduledRecipientIds();
  return v;
}

/** User IDs (a single ID is a list of one); emails are refused. */
function userIds(to: unknown): number[] {
  const list = typeof to === 'number' ? [to] : to;
  if (!Array.isArray(list) || !list.every((x) => typeof x === 'number' && Number.isSafeInteger(x))) throw errors.scheduledRecipientIds();
  return [...new Set(list as number[])];
}

/** The send command's input for a scheduled message, as it will be sent. */
export function sendInputOf(
  m: Pick<ScheduledMessage, 'senderId' | 'type' | 'channelId' | 'userIds' | 'topic' | 'content' | 'readBySender' | 'sendingClient'>,
  realmUrl: string,
): SendInput {
  return {
    senderId: m.senderId,
    type: m.type === 'stream' ? 'stream' : 'direct',
    to: m.type === 'stream' ? m.channelId! : m.userIds!,
    topic: m.type === 'stream' ? m.topic : undefined,
    content: m.content,
    readBySender: m.readBySender ?? undefined,
    client: m.sendingClient,
    realmUrl,
  };
}

export interface CheckedScheduled {
  type: ScheduledType;
  channelId: number | null;
  userIds: number[] | null;
  topic: string;
  content: string;
  renderedContent: string;
}

/** Runs the send command's check on the message as it would be sent now; throws its errors. */
export function checkScheduled(
  state: RealmState,
  senderId: number,
  d: ScheduledDraft,
  client: string,
  realmUrl: string,
  rendered: Prerendered | undefined,
): CheckedScheduled {
  if (d.type === 'stream') {
    const channelId = channelIdOf(d.to);
    const plan = sendMessage.check(state, { senderId, type: 'stream', to: channelId, topic: d.topic, content: d.content, client, realmUrl, rendered });
    const m = plan.message;
    return { type: 'stream', channelId, userIds: null, topic: m.topic, content: m.content, renderedContent: m.renderedContent };
  }
  const ids = userIds(d.to);
  const plan = sendMessage.check(state, { senderId, type: 'direct', to: ids, content: d.content, client, realmUrl, rendered });
  const others = plan.message.directRecipients.filter((id) => id !== senderId);
  const m = plan.message;
  return { type: 'private', channelId: null, userIds: others.length > 0 ? others : [senderId], topic: '', content: m.content, renderedContent: m.renderedContent };
}

/** Zulip's rule when read_by_sender is absent: read for a human client's message, unless it is to oneself only. */
export function resolveReadBySender(explicit: boolean | undefined, client: string, senderId: number, c: CheckedScheduled): boolean {
  if (explicit !== undefined) return explicit;
  const toSelfOnly = c.type === 'private' && c.userIds!.length === 1 && c.userIds![0] === senderId;
  return defaultReadBySender(client) && !toSelfOnly;
}

export function newScheduled(
  state: RealmState,
  senderId: number,
  c: CheckedScheduled,
  scheduledAt: number,
  readBySender: boolean,
  sendingClient: string,
): NewScheduledMessage {
  return { realmId: state.realm.id, senderId, ...c, scheduledAt, readBySender, sendingClient };
}
