// Classifies database failures: lost connections and unanswered queries become 503 envelopes rather than 500s.

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'ENOENT']);
// PostgreSQL: admin shutdown, crash shutdown, cannot connect now, connection failures.
const SQLSTATE_CONNECTION = /^(57P0[1-3]|08\d{3}|53300)$/;

export function isConnectionError(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as { code?: unknown; message?: unknown };
  if (typeof e.code === 'string' && (CONNECTION_CODES.has(e.code) || SQLSTATE_CONNECTION.test(e.code))) return true;
  const msg = typeof e.message === 'string' ? e.message : '';
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Too many connections|Query read timeout|not queryable|connection is closed/i.test(msg);
}

/** node-postgres gave up waiting for a query's answer (query_timeout). */
export function isQueryTimeout(err: unknown): boolean {
  return err instanceof Error && err.message === 'Query read timeout';
}

/**
 * PostgreSQL answered the statement with an error of its own (a refusal, not a lost connection or an unanswered
 * query): a statement outside a transaction that failed so committed nothing.
 */
export function isStatementError(err: unknown): boolean {
  if (!(err instanceof Error) || isConnectionError(err)) return false;
  const e = err as { code?: unknown; severity?: unknown };
  return typeof e.severity === 'string' && typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code);
}
