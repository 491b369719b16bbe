// HTTP Basic authentication with email and API key.
import { secretsEqual } from '../auth/secrets.js';
import type { RealmState } from '../realm/state.js';
import type { User } from '../realm/types.js';
import { errors } from './errors.js';

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

/** The user an Authorization header names in this realm, or the matching 401. */
export function authenticate(state: RealmState, header: string | undefined): User {
  const creds = parseBasicAuth(header);
  if (!creds) throw errors.notLoggedIn();
  const user = state.userByEmail(creds.username);
  // Compare even when the user is unknown, so timing does not tell which emails exist.
  const keyMatches = secretsEqual(creds.secret, user?.apiKey ?? '\u0000no-such-user');
  if (!user || !keyMatches) throw errors.invalidApiKey();
  if (state.realm.deactivated) throw errors.realmDeactivated();
  if (!user.isActive) throw errors.userDeactivated();
  return user;
}
