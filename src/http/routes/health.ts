// Health probes for orchestrators: /health/live (the process answers) and /health/ready (database reachable,
// migrations applied, actors started, not shutting down). No credentials, no realm.
import { endpoint, RawReply } from '../endpoint.js';

const JSON_HEADERS = { 'Cache-Control': 'no-store' };

export const liveness = endpoint({
  method: 'GET',
  path: '/health/live',
  root: true,
  auth: 'public',
  rateLimited: false,
  params: {},
  handle() {
    return new RawReply({ status: 200, headers: JSON_HEADERS, body: JSON.stringify({ status: 'live' }) });
  },
});

export const readiness = endpoint({
  method: 'GET',
  path: '/health/ready',
  root: true,
  auth: 'public',
  rateLimited: false,
  params: {},
  async handle(ctx) {
    const r = await ctx.services.operators.health.readiness();
    const body = JSON.stringify({ status: r.ready ? 'ready' : 'unavailable', checks: r.checks });
    return new RawReply({ status: r.ready ? 200 : 503, headers: JSON_HEADERS, body });
  },
});

export const healthEndpoints = [liveness, readiness];
