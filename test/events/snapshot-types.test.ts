// buildSnapshot runs only the sections it has: event types that name Object.prototype's members (fetch_event_types
// is client input) are ignored like any unknown type, rather than called with the snapshot context.
import test from 'ava';
import { buildSnapshot } from '../../src/events/snapshot/index.js';

test('types named like Object.prototype members are unknown types', async (t) => {
  const ctx = { db: { secret: 'not for clients' } } as unknown as Parameters<typeof buildSnapshot>[0];
  for (const type of ['constructor', 'toString', 'hasOwnProperty', '__proto__', 'valueOf']) {
    t.deepEqual(await buildSnapshot(ctx, [type]), {}, type);
  }
});
