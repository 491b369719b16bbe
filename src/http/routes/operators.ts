// The operator API (Bearer operator token, never a chat user's key): Prometheus metrics and actor inspection —
// list with filters, counts by kind and state, one actor with its persisted snapshot.
import type { ActorFilter } from '../../operators/actor-directory.js';
import { mergeNodes } from '../../operators/live-feed.js';
import { endpoint, RawReply } from '../endpoint.js';
import { errors } from '../../errors.js';
import { metricsReply } from '../metrics-listener.js';
import { bool, int, optional, required, str, withDefault } from '../../params.js';

export const metrics = endpoint({
  method: 'GET',
  path: '/metrics',
  root: true,
  auth: 'operator',
  rateLimited: false,
  params: {},
  async handle(ctx) {
    return new RawReply(await metricsReply(ctx.services.operators.metrics));
  },
});

const filterParams = {
  kind: optional(str()),
  realm: optional(int()),
  state: optional(str()),
  q: optional(str()),
};

function filterOf(p: { kind?: string; realm?: number; state?: string; q?: string }): ActorFilter {
  return { kind: p.kind, realm: p.realm, state: p.state, q: p.q };
}

export const listActors = endpoint({
  method: 'GET',
  path: '/operators/actors',
  root: true,
  auth: 'operator',
  rateLimited: false,
  params: { ...filterParams, limit: withDefault(int({ min: 1, max: 10_000 }), 1000), all_nodes: withDefault(bool(), false) },
  async handle(ctx, p) {
    const { actors } = ctx.services.operators;
    // Inspection runs for a while after each look, so the next one shows time in state and transitions.
    ctx.services.operators.lookedAt();
    const rows = actors.list(filterOf(p));
    const cluster = ctx.services.cluster;
    const reply = { actors: rows.slice(0, p.limit), matched: rows.length, counts: actors.counts(), ...(cluster ? { node: cluster.node } : {}) };
    // Cluster mode, all_nodes: every process's rows, each row naming its node, and which node owns which realm.
    if (!cluster || !p.all_nodes) return reply;
    const [others, ownership] = await Promise.all([cluster.actorsElsewhere(filterOf(p), p.limit), cluster.ownership()]);
    return {
      ...reply,
      ...mergeNodes([{ node: cluster.node, actors: reply.actors, matched: rows.length, counts: reply.counts }, ...others]),
      nodes: [cluster.node, ...others.map((n) => n.node)],
      ...ownership,
    };
  },
});

export const actorCounts = endpoint({
  method: 'GET',
  path: '/operators/actors/counts',
  root: true,
  auth: 'operator',
  rateLimited: false,
  params: filterParams,
  handle(ctx, p) {
    const counts = ctx.services.operators.actors.counts(filterOf(p));
    const kinds: Record<string, number> = {};
    for (const c of counts) kinds[c.kind] = (kinds[c.kind] ?? 0) + c.count;
    return { counts, kinds, total: counts.reduce((n, c) => n + c.count, 0) };
  },
});

export const getActor = endpoint({
  method: 'GET',
  path: '/operators/actors/{actor_id}',
  root: true,
  auth: 'operator',
  rateLimited: false,
  params: { actor_id: required(str()) },
  handle(ctx, p) {
    const { actors } = ctx.services.operators;
    ctx.services.operators.lookedAt();
    const actor = actors.find(p.actor_id);
    if (!actor) throw errors.notFound(`No such actor: ${p.actor_id}`);
    return { actor: actors.row(actor), snapshot: actors.persisted(actor) };
  },
});

/** Cluster mode: this process, and which process owns each realm and the once-only work (from the leases). */
export const clusterOverview = endpoint({
  method: 'GET',
  path: '/operators/cluster',
  root: true,
  auth: 'operator',
  rateLimited: false,
  params: {},
  async handle(ctx) {
    const cluster = ctx.services.cluster;
    if (!cluster) return { cluster: false };
    return { cluster: true, ...(await cluster.overview()) };
  },
});

/**
 * This process's last seconds of traffic, one row per second (the dashboard's series: requests, errors, latency,
 * events published and delivered), and now: the event queues, the events they hold unacknowledged, the polls parked
 * and the commands waiting in the realm actors' mailboxes — what a load test reads second by second without resetting
 * /metrics' histograms.
 */
export const traffic = endpoint({
  method: 'GET',
  path: '/operators/traffic',
  root: true,
  auth: 'operator',
  rateLimited: false,
  params: { seconds: withDefault(int({ min: 1, max: 600 }), 60) },
  handle(ctx, p) {
    const { queues, longPolls, operators } = ctx.services;
    return {
      series: operators.throughput.series(p.seconds),
      event_queues: queues.size,
      events_held: queues.heldEvents(),
      long_polls_parked: longPolls.count,
      realm_commands_waiting: operators.actors.waiting('realm'),
    };
  },
});

export const operatorEndpoints = [metrics, listActors, actorCounts, getActor, clusterOverview, traffic];
