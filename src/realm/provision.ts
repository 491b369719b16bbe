// Creating realms (with their system groups and permission defaults) and users (with their role's group).
import { generateApiKey } from '../auth/secrets.js';
import type { Tx } from '../persistence/db.js';
import { subscribeToDefaultChannels } from './channels/default-channels.js';
import {
  REALM_GROUP_SETTING_DEFAULTS,
  SYSTEM_GROUP,
  SYSTEM_GROUP_DESCRIPTIONS,
  SYSTEM_SUBGROUPS,
  roleGroup,
  type SystemGroupName,
} from './system-groups.js';
import type { Realm, Role, User } from '../model/realm.js';

export const STRING_ID_RE = /^$|^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/;

export async function createRealm(t: Tx, r: { stringId: string; name: string; description?: string }): Promise<Realm> {
  if (!STRING_ID_RE.test(r.stringId)) throw new Error(`Invalid realm subdomain: ${JSON.stringify(r.stringId)}`);
  const realm = await t.realms.insert(r);
  const ids = {} as Record<SystemGroupName, number>;
  for (const name of Object.values(SYSTEM_GROUP)) {
    ids[name] = await t.groups.insert({
      realmId: realm.id,
      name,
      description: SYSTEM_GROUP_DESCRIPTIONS[name],
      isSystemGroup: true,
    });
  }
  for (const [group, sub] of SYSTEM_SUBGROUPS) await t.groups.addSubgroup(ids[group], ids[sub]);
  const groupSettings = Object.fromEntries(
    Object.entries(REALM_GROUP_SETTING_DEFAULTS).map(([setting, group]) => [setting, ids[group]]),
  );
  await t.realms.setGroupSettings(realm.id, groupSettings);
  return { ...realm, groupSettings };
}

export interface UserSpec {
  email: string;
  fullName: string;
  role: Role;
  /** From hashPassword, computed before the transaction (hashing is slow; the embedded database is single-session). */
  passwordHash?: string | null;
  isBot?: boolean;
  botType?: number | null;
  botOwnerId?: number | null;
  canCreateUsers?: boolean;
  /** Personal settings the user starts with (settingsForNewUser in src/realm/people/user-settings.ts). */
  settings?: Record<string, unknown>;
  /** Join the realm's default channels (default: people yes, bots no); false when the caller subscribes them itself. */
  defaultChannels?: boolean;
}

/** Inserts a user and puts them in their role's system group. */
export async function createUser(t: Tx, realmId: number, spec: UserSpec): Promise<User> {
  const user = await t.users.insert({
    realmId,
    email: spec.email,
    fullName: spec.fullName,
    role: spec.role,
    apiKey: generateApiKey(),
    passwordHash: spec.passwordHash ?? null,
    isBot: spec.isBot,
    botType: spec.botType,
    botOwnerId: spec.botOwnerId,
    canCreateUsers: spec.canCreateUsers,
    settings: spec.settings,
  });
  const groupId = await t.one(
    'SELECT id FROM user_groups WHERE realm_id = $1 AND name = $2 AND is_system_group',
    [realmId, roleGroup(spec.role)],
    (r) => r.id as number,
  );
  await t.groups.addMember(groupId, user.id);
  if (spec.defaultChannels ?? !spec.isBot) await subscribeToDefaultChannels(t, realmId, user.id);
  return user;
}

const EMAIL_RE = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+\.[^\s@<>()[\]\\,;:"]+$|^[^\s@<>()[\]\\,;:"]+@localhost$/i;

export function isValidEmail(email: string): boolean {
  return email.length <= 254 && EMAIL_RE.test(email);
}
