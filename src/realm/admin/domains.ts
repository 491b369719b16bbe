// The organization's email domains (GET/POST/PATCH/DELETE /realm/domains): validation, commands and events.
import { errors } from '../../errors.js';
import type { RealmConfigEvent, RealmEvent } from '../../bus/events.js';
import type { CommandDef } from '../commands.js';
import { actor, activeUserIds } from '../access/roles.js';
import { realmSetting } from '../realm-settings.js';
import type { RealmState } from '../state.js';
import type { RealmDomain, StoredRealmDomain } from '../../model/realm.js';
import { requireOwner } from './realm.commands.js';

/** Domains kept per realm; the list lives with the realm row and is sent whole in register. */
const MAX_REALM_DOMAINS = 500;

/** The reference's validate_domain, on a trimmed, lower-cased domain; the reason it is invalid, else null. */
function domainProblem(domain: string): string | null {
  if (domain.length === 0) return "Domain can't be empty.";
  if (!domain.includes('.')) return 'Domain must have at least one dot (.)';
  if (domain.length > 255) return 'Domain is too long';
  if (domain.startsWith('.') || domain.endsWith('.')) return 'Domain cannot start or end with a dot (.)';
  for (const label of domain.split('.')) {
    if (label === '') return "Consecutive '.' are not allowed.";
    if (label.startsWith('-') || label.endsWith('-')) return "Subdomains cannot start or end with a '-'.";
    if (!/^[a-z0-9-]*$/.test(label)) return "Domain can only have letters, numbers, '.' and '-'s.";
  }
  return null;
}

/** A domain as the API shows it (GET /realm/domains, register, events). */
export const formatDomain = (d: RealmDomain): RealmDomain => ({ domain: d.domain, allow_subdomains: d.allow_subdomains });

/**
 * The reference's email_allowed_for_realm, for the organization's domain restriction: with emails_restricted_to_domains
 * on, the address's domain must be one of the realm's domains (or below one that allows subdomains) and its local
 * part has no `+`. The reason it is refused, else null.
 */
export function emailRefusal(state: RealmState, email: string): string | null {
  if (!realmSetting(state, 'emails_restricted_to_domains')) return null;
  const at = email.lastIndexOf('@');
  if (email.slice(0, at).includes('+')) return 'Email addresses containing + are not allowed.';
  const domain = email.slice(at + 1).toLowerCase();
  const allowed = state.realm.domains.some((d) => d.domain === domain || (d.allow_subdomains && domain.endsWith(`.${d.domain}`)));
  return allowed ? null : `Email '${email}' not allowed in this organization`;
}

function existing(state: RealmState, domain: string): StoredRealmDomain {
  const d = state.realm.domains.find((x) => x.domain === domain);
  if (!d) throw errors.noSuchDomain(domain);
  return d;
}

interface DomainsPlan {
  domains: StoredRealmDomain[];
  /** The added domain's ID. */
  id?: number;
  event: RealmConfigEvent;
  /** Removing the last domain turns emails_restricted_to_domains off, as the reference does. */
  unrestrict?: boolean;
}

const write = async (t: Parameters<NonNullable<CommandDef['write']>>[0], plan: DomainsPlan, state: RealmState) => {
  await t.realms.setDomains(state.realm.id, plan.domains);
  if (plan.unrestrict) await t.realms.updateProperties(state.realm.id, { settings: { emails_restricted_to_domains: false }, groupSettings: {} });
  return plan;
};
const apply = (state: RealmState, plan: DomainsPlan) => {
  const r = state.realm;
  state.realm = { ...r, domains: plan.domains, settings: plan.unrestrict ? { ...r.settings, emails_restricted_to_domains: false } : r.settings };
};
const events = (state: RealmState, plan: DomainsPlan) => {
  const users = activeUserIds(state);
  const out: RealmEvent[] = [{ event: plan.event, users }];
  if (plan.unrestrict) out.unshift({ event: { kind: 'realm', op: 'update', property: 'emails_restricted_to_domains', value: false }, users });
  return out;
};

const addDomain: CommandDef<{ actorId: number; domain: string; allowSubdomains: boolean }, DomainsPlan, DomainsPlan> = {
  check(state, input) {
    requireOwner(actor(state, input.actorId));
    const domain = input.domain.trim().toLowerCase();
    const problem = domainProblem(domain);
    if (problem) throw errors.invalidDomain(problem);
    if (state.realm.domains.some((d) => d.domain === domain)) throw errors.domainExists(domain);
    if (state.realm.domains.length >= MAX_REALM_DOMAINS) throw errors.badRequest(`An organization can have at most ${MAX_REALM_DOMAINS} domains.`);
    const id = Math.max(0, ...state.realm.domains.map((d) => d.id)) + 1;
    const added = { id, domain, allow_subdomains: input.allowSubdomains };
    return { domains: [...state.realm.domains, added], id, event: { kind: 'realm_domains', op: 'add', domain: formatDomain(added) } };
  },
  write,
  apply,
  events,
};

const changeDomain: CommandDef<{ actorId: number; domain: string; allowSubdomains: boolean }, DomainsPlan, DomainsPlan> = {
  check(state, input) {
    requireOwner(actor(state, input.actorId));
    const changed = { ...existing(state, input.domain), allow_subdomains: input.allowSubdomains };
    return {
      domains: state.realm.domains.map((d) => (d.domain === input.domain ? changed : d)),
      event: { kind: 'realm_domains', op: 'change', domain: formatDomain(changed) },
    };
  },
  write,
  apply,
  events,
};

const removeDomain: CommandDef<{ actorId: number; domain: string }, DomainsPlan, DomainsPlan> = {
  check(state, input) {
    requireOwner(actor(state, input.actorId));
    existing(state, input.domain);
    const domains = state.realm.domains.filter((d) => d.domain !== input.domain);
    const unrestrict = domains.length === 0 && realmSetting(state, 'emails_restricted_to_domains');
    return { domains, unrestrict, event: { kind: 'realm_domains', op: 'remove', domain: input.domain } };
  },
  write,
  apply,
  events,
};

export const domainCommands = {
  'realmDomains.add': addDomain,
  'realmDomains.change': changeDomain,
  'realmDomains.remove': removeDomain,
};
