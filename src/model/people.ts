// The records of people beyond the user itself: statuses, push devices, bots, presence, custom profile fields and invitations (as the repositories return them).
import type { Role } from './realm.js';

/** A bot's outgoing-webhook service (the reference's Service row). */
export interface BotService {
  name: string;
  baseUrl: string;
  /** 1: Zulip's (generic) payload, 2: Slack-compatible. */
  interface: number;
  token: string;
}

export interface BotSettings {
  userId: number;
  defaultSendingChannelId: number | null;
  defaultEventsRegisterChannelId: number | null;
  defaultAllPublicChannels: boolean;
  service: BotService | null;
}

export type EmailInviteStatus = 'active' | 'used' | 'revoked';

/** What a reusable link holds (role, channels, groups, expiry), for one address. */
export interface EmailInvite extends Omit<MultiuseInvite, 'createdAt' | 'revoked'> {
  email: string;
  notifyReferrerOnJoin: boolean;
  /** Seconds: when it was last mailed. */
  invitedAt: number;
  status: EmailInviteStatus;
}

export type NewEmailInvite = Omit<EmailInvite, 'id' | 'invitedAt' | 'status'>;

export interface MultiuseInvite {
  id: number;
  realmId: number;
  key: string;
  referredBy: number;
  invitedAs: Role;
  channelIds: number[];
  groupIds: number[];
  includeRealmDefaultSubscriptions: boolean;
  welcomeMessageCustomText: string | null;
  /** Seconds. */
  createdAt: number;
  /** Seconds; null never expires. */
  expiresAt: number | null;
  revoked: boolean;
}

export type NewInvite = Omit<MultiuseInvite, 'id' | 'createdAt' | 'revoked'>;

/** An email address waiting for its owner to follow the confirmation link mailed to it. */
export interface SignupConfirmation {
  id: number;
  realmId: number;
  key: string;
  email: string;
  inviteId: number;
  /** Seconds. */
  expiresAt: number;
  used: boolean;
}

export interface UserStatus {
  statusText: string;
  emojiName: string;
  emojiCode: string;
  reactionType: string;
}

export interface PushDevice {
  userId: number;
  pushAccountId: number;
  tokenKind: 'fcm' | 'apns';
  pushPublicKey: string;
  bouncerPublicKey: string;
  encryptedPushRegistration: string;
}

export interface PresenceRow {
  userId: number;
  realmId: number;
  /** Seconds. */
  lastConnectedTime: number;
  lastActiveTime: number;
  lastUpdateId: number;
}

export interface ProfileField {
  id: number;
  realmId: number;
  name: string;
  hint: string;
  type: number;
  /** JSON text (list of options, external account) or ''. */
  fieldData: string;
  order: number;
  displayInProfileSummary: boolean;
  required: boolean;
  editableByUser: boolean;
}

export type NewProfileField = Omit<ProfileField, 'id' | 'order'>;

export type ProfileFieldChanges = Partial<Pick<ProfileField, 'name' | 'hint' | 'fieldData' | 'displayInProfileSummary' | 'required' | 'editableByUser'>>;

export interface ProfileValue {
  value: string;
  /** HTML of text values; null for the other types. */
  renderedValue: string | null;
}

export type PushTokenKind = 'apns' | 'fcm';
