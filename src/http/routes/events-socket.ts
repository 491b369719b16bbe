// Event queues over WebSocket: GET /events/socket (the upgrade, by HTTP Basic or a ticket) and
// POST /events/socket/ticket (a browser's way in: a one-use ticket for the upgrade's URL, never the API key).
import { credentialsRevoked } from '../auth.js';
import { TICKET_TTL_MS } from '../events-socket-tickets.js';
import type { SocketStart } from '../events-socket.js';
import { RawReply, endpoint } from '../endpoint.js';
import { errors } from '../../errors.js';
import { int, optional, required, str, withDefault } from '../../params.js';

export const eventsSocket = endpoint({
  method: 'GET',
  path: '/events/socket',
  // HTTP Basic as for GET /events, or no header and a ticket (browsers cannot set one on a WebSocket).
  auth: 'optional',
  rateLimited: false,
  // The query may hold a ticket: the request log shows the route instead.
  secretPath: true,
  params: {
    queue_id: required(str({ maxLength: 200 })),
    last_event_id: withDefault(int({ min: -1 }), -1),
    ticket: optional(str({ maxLength: 100 })),
  },
  async handle(ctx, p) {
    let user = ctx.user;
    if (user === null) {
      if (p.ticket === undefined) throw errors.notLoggedIn();
      const ticketUser = await ctx.services.socketTickets.redeem(p.ticket, ctx.realm.id, p.queue_id);
      const found = ticketUser === null ? undefined : ctx.realm.state.usersById.get(ticketUser);
      // A user deactivated since the ticket was issued gets nothing.
      if (!found?.isActive) throw errors.invalidApiKey();
      user = found;
    }
    if (ctx.request.headers['sec-websocket-key'] === undefined) throw errors.badRequest('This endpoint takes a WebSocket upgrade');
    // Cluster mode: a queue another process holds is relayed from it (src/cluster/socket-relay.ts).
    const cluster = ctx.services.cluster;
    const { realms } = ctx.services;
    const [realmId, userId, apiKey] = [ctx.realm.id, user.id, user.apiKey];
    const start: SocketStart = {
      queueId: p.queue_id,
      userId,
      lastEventId: p.last_event_id,
      relayed: cluster !== null && !cluster.isLocalQueue(p.queue_id),
      // A poll authenticates each time; the socket is checked before each delivery with the key it opened with.
      revoked: () => {
        const state = realms.stateIfLoaded(realmId);
        return state ? credentialsRevoked(state, userId, apiKey) : null;
      },
    };
    return new RawReply({ status: 101, body: '', upgrade: start });
  },
});

export const eventsSocketTicket = endpoint({
  method: 'POST',
  path: '/events/socket/ticket',
  auth: 'user',
  params: { queue_id: required(str({ maxLength: 200 })) },
  async handle(ctx, p) {
    // In cluster mode the queue may be held by another process (it asks that one): the ticket is good on every process.
    const { cluster, queues } = ctx.services;
    const held = cluster !== null && !cluster.isLocalQueue(p.queue_id)
      ? await cluster.holdsElsewhere(p.queue_id, ctx.user.id)
      : queues.get(p.queue_id, ctx.user.id) !== undefined;
    if (!held) throw errors.badEventQueueId(p.queue_id);
    const ticket = await ctx.services.socketTickets.issue(ctx.realm.id, ctx.user.id, p.queue_id);
    return { ticket, expires_in_seconds: TICKET_TTL_MS / 1000 };
  },
});
