// The error envelope an HTTP answer carries, made from any thrown value.
import { ApiError, errors } from '../errors.js';
import { isConnectionError } from '../persistence/errors.js';

export interface ErrorReply {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** Turns any thrown value into the error envelope. Unexpected errors are reported through `onUnexpected`. */
export function toErrorReply(err: unknown, onUnexpected: (err: unknown) => void): ErrorReply {
  // A database that is down or saturated is a 503 the client may retry, not a bug.
  const apiError = err instanceof ApiError ? err : isConnectionError(err) ? errors.unavailable('Database unavailable') : undefined;
  if (!apiError) onUnexpected(err);
  const e = apiError ?? errors.internal();
  return {
    status: e.status,
    headers: e.headers,
    body: { result: 'error', msg: e.message, code: e.code, ...e.extra },
  };
}
