// The records of a realm: the realm itself, its users and groups (as the repositories load them and the realm keeps them in memory).

export const ROLE = { OWNER: 100, ADMINISTRATOR: 200, MODERATOR: 300, MEMBER: 400, GUEST: 600 } as const;
export type Role = (typeof ROLE)[keyof typeof ROLE];
export const ROLES: readonly Role[] = [100, 200, 300, 400, 600];

/** A group-setting value: a group ID, or an anonymous group of direct members and subgroups. */
export type GroupSettingValue = number | { direct_members: number[]; direct_subgroups: number[] };

export interface Realm {
  id: number;
  stringId: string;
  name: string;
  description: string;
  deactivated: boolean;
  dateCreated: number;
  settings: Record<string, unknown>;
  groupSettings: Record<string, GroupSettingValue>;
  userSettingsDefaults: Record<string, unknown>;
  /** Email domains of the organization (GET /realm/domains), in the order they were added. */
  domains: StoredRealmDomain[];
  /** Uploaded icon and logos: absent until one is uploaded. */
  branding: RealmBranding;
}

export interface RealmDomain {
  domain: string;
  allow_subdomains: boolean;
}
/** With the ID POST /realm/domains answers with. */
export interface StoredRealmDomain extends RealmDomain {
  id: number;
}

export type BrandingImage = 'icon' | 'logo' | 'night_logo';
/** Uploaded (the stored file's name, unique per upload) or back to the default; the version changes with every
 *  change, so cached copies are not reused. */
export type RealmBranding = Partial<Record<BrandingImage, { uploaded: boolean; version: number; file: string }>>;

export interface User {
  id: number;
  realmId: number;
  email: string;
  fullName: string;
  role: Role;
  isBot: boolean;
  botType: number | null;
  botOwnerId: number | null;
  isActive: boolean;
  apiKey: string;
  passwordHash: string | null;
  canCreateUsers: boolean;
  dateJoined: number;
  timezone: string;
  settings: Record<string, unknown>;
  /** Custom profile field values by field ID (as the API shows them); absent when the user has none. */
  profileData?: Readonly<Record<string, { value: string; rendered_value?: string }>>;
}

export interface UserGroup {
  id: number;
  realmId: number;
  name: string;
  description: string;
  isSystemGroup: boolean;
  deactivated: boolean;
  creatorId: number | null;
  dateCreated: number;
  groupSettings: Record<string, GroupSettingValue>;
  directMembers: Set<number>;
  directSubgroups: Set<number>;
}

/** A realm as the directory knows it: enough to route a request by host. */
export interface RealmEntry {
  id: number;
  stringId: string;
  deactivated: boolean;
}

export interface NewUser {
  realmId: number;
  email: string;
  fullName: string;
  role: Role;
  apiKey: string;
  passwordHash: string | null;
  isBot?: boolean;
  botType?: number | null;
  botOwnerId?: number | null;
  canCreateUsers?: boolean;
  settings?: Record<string, unknown>;
}
