// Snapshot sections of the organization's administration: its email domains.
import { formatDomain } from '../../realm/admin/domains.js';
import type { Section } from './types.js';

export const realmAdminSections: Record<string, Section> = {
  realm_domains: ({ state }) => ({ realm_domains: state.realm.domains.map(formatDomain) }),
};
