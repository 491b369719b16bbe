// Asserting the error envelope of a reply: HTTP status, code and message.
import type { ExecutionContext } from 'ava';
import type { Response } from './http.js';

export function expectError(t: ExecutionContext, r: Pick<Response, 'status' | 'json'>, msg: string | RegExp, code = 'BAD_REQUEST', status = 400): void {
  t.is(r.status, status, JSON.stringify(r.json));
  t.like(r.json, { result: 'error', code });
  if (typeof msg === 'string') t.is(r.json?.msg, msg);
  else t.regex(String(r.json?.msg), msg);
}
