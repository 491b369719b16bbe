// HTTP Basic authentication with email and API key.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { RealmState } from '../realm/state.js';
import type { User } from '../model/realm.js';
import { BOT_TYPE } from '../realm/people/bots.js';
import { errors, type ApiError } from '../errors.js';

export interface BasicCredentials {
  username: string;
  secret: string;
}

/** Parses an Authorization header; null when absent. Malformed headers are 401s. */
export function parseBasicAuth(header: string | undefined): BasicCredentials | null {
  if (header === undefined || header === '') return null;
  const space = header.indexOf(' ');
  const scheme = space < 0 ? header : header.slice(0, space);
  if (scheme.toLowerCase() !== 'basic') throw errors.basicAuthRequired();
  const encoded = header.slice(space + 1).trim();
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || encoded.length % 4 !== 0) throw errors.invalidBasicHeader();
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) throw errors.invalidBasicHeader();
  return { username: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}

function sha256(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

/**
 * Every request (each long-poll among them) authenticates, so the work that does not depend on the realm's current
 * state is remembered: a header's decoded email (lower-cased) and the SHA-256 of its secret, each user record's SHA-256
 * of its API key, and the user record and key a header last matched. What is decided stays per request: the user is
 * looked up in the realm's working set every time, and unless it is the very record, with the very key, that this
 * header matched before, the two digests are compared in constant time; so a changed API key, a changed email or a
 * deactivation counts at once.
 */
interface ParsedHeader {
  /** The email as sent, and lower-cased (how accounts are looked up and rate-limited). */
  username: string;
  account: string;
  secretHash: Buffer;
  /** The user record and its API key that this header's secret last matched. */
  matched: User | null;
  matchedKey: string;
}

/** Headers seen lately; cleared whole when full, so headers with made-up secrets cannot grow it. */
const headers = new Map<string, ParsedHeader>();
export const HEADER_CACHE_SIZE = 20_000;

/** A user record's key digest, for the key it held when computed (records are replaced, not edited, but be sure). */
const keyHashes = new WeakMap<User, { apiKey: string; hash: Buffer }>();
const NO_USER_HASH = sha256('\u0000no-such-user');

function parsedHeader(header: string | undefined): ParsedHeader | null {
  if (header === undefined || header === '') return null;
  const known = headers.get(header);
  if (known) return known;
  const creds = parseBasicAuth(header);
  if (!creds) return null;
  // The account is copied into a string of its own: a slice of the decoded header is a view on it, which every later
  // lower-casing and map lookup by it (each request's) reads through V8's slow path.
  const account = Buffer.from(creds.username.toLowerCase(), 'utf8').toString('utf8');
  const parsed: ParsedHeader = { username: creds.username, account, secretHash: sha256(creds.secret), matched: null, matchedKey: '' };
  if (headers.size >= HEADER_CACHE_SIZE) headers.clear();
  headers.set(header, parsed);
  return parsed;
}

function keyHash(user: User): Buffer {
  const known = keyHashes.get(user);
  if (known && known.apiKey === user.apiKey) return known.hash;
  const hash = sha256(user.apiKey);
  keyHashes.set(user, { apiKey: user.apiKey, hash });
  return hash;
}

/** The email address a Basic Authorization header names, lower-cased, or null (absent or malformed). */
export function basicUsername(header: string | undefined): string | null {
  try {
    return parsedHeader(header)?.account ?? null;
  } catch {
    return null;
  }
}

/** The user an Authorization header names in this realm, or the matching 401. */
export function authenticate(state: RealmState, header: string | undefined): User {
  const creds = parsedHeader(header);
  if (!creds) throw errors.notLoggedIn();
  const user = state.userByEmail(creds.account);
  if (!user || user !== creds.matched || user.apiKey !== creds.matchedKey) {
    // Compare even when the user is unknown, so timing does not tell which emails exist.
    const keyMatches = timingSafeEqual(creds.secretHash, user ? keyHash(user) : NO_USER_HASH);
    if (!user || !keyMatches) throw errors.invalidApiKey();
    creds.matched = user;
    creds.matchedKey = user.apiKey;
  }
  const refused = accountRefusal(state, user);
  if (refused) throw refused;
  return user;
}

/** The error of an account whose realm or self is deactivated, or null. */
function accountRefusal(state: RealmState, user: User): ApiError | null {
  if (state.realm.deactivated) return errors.realmDeactivated();
  if (!user.isActive) return errors.userDeactivated();
  return null;
}

/**
 * For a connection that stays open after it authenticated (an event socket): the error it would get now, with the
 * API key it authenticated with, or null while that still holds (a regenerated key, a deactivation end it).
 */
export function credentialsRevoked(state: RealmState, userId: number, apiKey: string): ApiError | null {
  const user = state.usersById.get(userId);
  if (!user || user.apiKey !== apiKey) return errors.invalidApiKey();
  return accountRefusal(state, user);
}

/** Incoming-webhook bots may only send messages; some endpoints are for people only (the reference's
 *  allow_incoming_webhooks and human_users_only). */
export function checkBotAccess(endpoint: { bots: 'all' | 'none' | 'not-incoming-webhook' }, bot: User): void {
  if (endpoint.bots === 'none') throw errors.notForBots();
  if (endpoint.bots === 'not-incoming-webhook' && bot.botType === BOT_TYPE.INCOMING_WEBHOOK) throw errors.notForIncomingWebhookBots();
}
