// What a handler asks of its request beyond the parameters: the realm's URL, the server's context for the
// realm's commands, and the viewer of a read that spectators may make.
import { errors } from '../errors.js';
import type { User } from '../model/realm.js';
import { webPublicAllowed } from '../realm/access/channels.js';
import type { ServerContext } from '../realm/channels/creating.js';
import { realmUrl } from '../urls.js';
import type { RequestContext } from './endpoint.js';

/** The realm URL of the request's realm (links into it render relative). */
export function requestRealmUrl(ctx: RequestContext): string {
  return realmUrl(ctx.services.config, ctx.realm.state.realm.stringId);
}

/** What the server knows that a realm's working set does not: its URL and WEB_PUBLIC_STREAMS_ENABLED. */
export function serverContext(ctx: RequestContext): ServerContext {
  return {
    realmUrl: requestRealmUrl(ctx),
    webPublicStreamsEnabled: ctx.services.config.webPublicStreamsEnabled,
  };
}

/** The viewer of a read that spectators may make: the user, or null for a spectator when the realm allows them. */
export function viewer(ctx: RequestContext): User | null {
  if (ctx.user) return ctx.user;
  if (!webPublicAllowed(ctx.realm.state, ctx.services.config.webPublicStreamsEnabled)) throw errors.notLoggedIn();
  return null;
}
