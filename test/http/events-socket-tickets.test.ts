// Event-socket tickets with a controlled clock: one use, one queue, one realm, within their lifetime, bounded in number.
import test from 'ava';
import { MAX_TICKETS, SocketTickets, TICKET_TTL_MS } from '../../src/http/events-socket-tickets.js';

function tickets() {
  const clock = { t: 1_000_000 };
  return { clock, store: new SocketTickets(() => clock.t) };
}

test('a ticket names its user for its realm and queue, once', (t) => {
  const { store } = tickets();
  const ticket = store.issue(1, 7, 'q');
  t.is(store.redeem(ticket, 1, 'q'), 7);
  t.is(store.redeem(ticket, 1, 'q'), null, 'spent');
});

test('a ticket for another queue or realm is refused, and spent by the try', (t) => {
  const { store } = tickets();
  const a = store.issue(1, 7, 'q');
  t.is(store.redeem(a, 1, 'other'), null);
  t.is(store.redeem(a, 1, 'q'), null);
  const b = store.issue(1, 7, 'q');
  t.is(store.redeem(b, 2, 'q'), null);
  t.is(store.redeem('made-up', 1, 'q'), null);
});

test('a ticket expires after its lifetime; expired ones are dropped as new ones are issued', (t) => {
  const { clock, store } = tickets();
  const old = store.issue(1, 7, 'q');
  clock.t += TICKET_TTL_MS;
  t.is(store.redeem(old, 1, 'q'), null);
  store.issue(1, 7, 'q');
  clock.t += TICKET_TTL_MS + 1;
  store.issue(1, 7, 'q');
  t.is(store.size, 1);
});

test('past MAX_TICKETS the oldest is dropped', (t) => {
  const { store } = tickets();
  const first = store.issue(1, 1, 'q');
  for (let i = 1; i < MAX_TICKETS; i++) store.issue(1, 1, 'q');
  t.is(store.size, MAX_TICKETS);
  const last = store.issue(1, 1, 'q');
  t.is(store.size, MAX_TICKETS);
  t.is(store.redeem(first, 1, 'q'), null);
  t.is(store.redeem(last, 1, 'q'), 1);
});
