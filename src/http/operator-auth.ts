// The operator token: `Authorization: Bearer <OPERATOR_TOKEN>`. Never a chat user's key; refused when unset.
import { secretsEqual } from '../auth/secrets.js';
import { errors } from '../errors.js';

/** Throws the matching 401/403 unless `header` carries the configured operator token. */
export function requireOperatorToken(configured: string | undefined, header: string | undefined): void {
  if (!configured) throw errors.operatorAccessDisabled();
  if (header === undefined || header === '') throw errors.operatorTokenRequired();
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) throw errors.operatorTokenRequired();
  if (!operatorTokenMatches(configured, m[1]!)) throw errors.invalidOperatorToken();
}

/** Constant-time comparison; also used by the dashboard's WebSocket, whose browsers cannot send headers. */
export function operatorTokenMatches(configured: string | undefined, token: string): boolean {
  return !!configured && secretsEqual(token, configured);
}
