// The ramp's per-step server p99s by route (bench/lib/probe.ts) read from prom-client's own exposition text: every
// route is reported, those whose label holds braces (a path parameter) too, from the observations between two scrapes.
import test from 'ava';
import { Histogram, Registry } from 'prom-client';
import { p99s } from '../../bench/lib/probe.js';

test('p99 by route between two scrapes, a route with {message_id} included', async (t) => {
  const registry = new Registry();
  const h = new Histogram({ name: 'req_seconds', help: 'x', labelNames: ['method', 'route'], buckets: [0.01, 0.05, 0.1, 0.5], registers: [registry] });
  const reactions = { method: 'POST', route: '/api/v1/messages/{message_id}/reactions' };
  const messages = { method: 'GET', route: '/api/v1/messages' };
  // Before the window: slow answers that must not count.
  for (let i = 0; i < 50; i++) h.observe(reactions, 0.4);
  const before = await registry.metrics();
  for (let i = 0; i < 100; i++) h.observe(reactions, i < 98 ? 0.005 : 0.08);
  for (let i = 0; i < 100; i++) h.observe(messages, 0.03);
  const after = await registry.metrics();
  t.deepEqual(p99s(before, after, 'req_seconds'), {
    'POST /api/v1/messages/{message_id}/reactions': 100,
    'GET /api/v1/messages': 50,
  });
});
