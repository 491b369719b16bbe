// BodyStream's accounting against the server-wide budget of body bytes in flight, without a server.
import test from 'ava';
import { BodyBudget, BodyStream } from '../../src/http/body-stream.js';
import { errors } from '../../src/errors.js';

const limit = { bytes: 1024 * 1024, error: () => errors.bodyTooLarge(1024 * 1024) };

test('bytes that arrive after a request is over are not charged to the budget', (t) => {
  const budget = new BodyBudget(1000, 500);
  const body = new BodyStream(900, limit, undefined, { budget, anonymous: false, stallMs: 60_000 });
  body.push(Buffer.alloc(300), false);
  t.is(budget.used, 300);
  body.release(); // answered early (a streamed reply, a refusal) while the client still sends
  t.is(budget.used, 0);
  body.push(Buffer.alloc(300), false);
  body.push(Buffer.alloc(300), true);
  t.is(budget.used, 0, 'a late chunk would otherwise hold the budget for good');
  body.release();
  t.is(budget.used, 0);
});
