// Every operation the reference OpenAPI documents is served: each is requested (as a fresh member, with
// placeholder path parameters and no body) and must not answer "no such endpoint" (404 NOT_FOUND) or 405, except
// the operations in ALLOWED_MISSING, which must be exactly the ones README.md lists under "Differences from the
// reference" (the test checks the two lists agree, and that each listed one is indeed still missing).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { packageRoot } from '../../src/paths.js';
import { referenceOperations } from '../helpers/openapi.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';

/** Operations not served, by `METHOD /path`, with the reason (the README says the same). */
const ALLOWED_MISSING: Record<string, string> = {
  'POST /mobile_push/test_notification': 'no push notifications are sent (no push-service connection yet)',
  'POST /realm/test_welcome_bot_custom_message': 'issue #16 (administration), not built yet',
  'GET /user_uploads/{realm_id_str}/{filename}': 'not built: files are fetched with credentials instead',
  'POST /dev_fetch_api_key': 'development environment only in the reference',
  'POST /mobile_push/e2ee/test_notification': 'feature level 420, above ours',
  'POST /real-time': 'documentation page, not an endpoint',
  'POST /rest-error-handling': 'documentation page, not an endpoint',
  'POST /zulip-outgoing-webhook': 'documentation page, not an endpoint',
};

let s: TestServer;

test.before(async () => {
  s = await startTestServer();
});
test.after.always(async () => s?.close());

/** A value for each path parameter that names something of the right form (not necessarily something that exists). */
const PLACEHOLDERS: Record<string, string> = {
  realm_id_str: '1',
  filename: 'abc/file.txt',
  emoji_name: 'smile',
  email: 'nobody@test.example',
  user_id_or_email: 'nobody@test.example',
  fragment: 'x',
};

/** The operations README.md lists under "Differences from the reference": lines "- `METHOD /path`: reason". */
function readmeList(): string[] {
  const readme = readFileSync(path.join(packageRoot, 'README.md'), 'utf8');
  const section = /^## Differences from the reference\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(readme);
  if (!section) return [];
  return [...section[1]!.matchAll(/^- `((?:GET|POST|PUT|PATCH|DELETE) \/[^`]*)`/gm)].map((m) => m[1]!);
}

test('the README lists exactly the operations allowed to be missing', (t) => {
  t.deepEqual(readmeList().sort(), Object.keys(ALLOWED_MISSING).sort());
});

test('every documented operation is served', async (t) => {
  const operations = referenceOperations();
  if (operations.length === 0) return t.pass('the reference document is not here');
  const missing: string[] = [];
  for (const op of operations) {
    const url = op.template.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURI(PLACEHOLDERS[name] ?? '1'));
    // A fresh member each time: some operations (deactivating oneself, a new API key) end the caller's access.
    const member = await addUser(s);
    const r = await s.client.as(member).request(op.method, url, { headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    const absent = r.status === 405 || (r.status === 404 && r.json?.code === 'NOT_FOUND' && r.json?.msg === 'Not Found');
    if (absent) missing.push(`${op.method} ${op.template}`);
  }
  t.deepEqual(missing.sort(), Object.keys(ALLOWED_MISSING).sort());
});
