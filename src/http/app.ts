// The request pipeline: observe → route → realm by host → authenticate → parameters → handler → envelope.
import type { RealmHandle } from '../actors/realms.js';
import type { ObservedRequest } from '../operators/requests.js';
import { authenticate, basicUsername, checkBotAccess } from './auth.js';
import { readParams } from './body.js';
import { RawReply, type Endpoint, type RequestContext } from './endpoint.js';
import { ApiError, errors } from '../errors.js';
import { requireOperatorToken } from './operator-auth.js';
import { htmlErrorPage } from './pages.js';
import { errorReply, type Connection, type IncomingRequest, type Reply } from './respond.js';
import { Router, type Match } from './router.js';
import type { RateDecision } from './rate-limit.js';
import type { Services } from './services.js';

const API_PREFIX = '/api/v1';
const NO_BODY = Buffer.alloc(0);

export function createHandler(services: Services, endpoints: Endpoint[]) {
  const api = new Router();
  const root = new Router();
  for (const e of endpoints) (e.root ? root : api).add(e);
  /** Each endpoint's route as requests are logged and counted by it: made once, not joined again for every request. */
  const routes = new Map(endpoints.map((e) => [e, (e.root ? '' : API_PREFIX) + e.path]));

  /** Every request: observed (request id, log line, metrics), routed, and any failure turned into the envelope. Not an
   *  async function: a parked request holds one promise reaction here rather than a suspended frame. */
  return function handle(request: IncomingRequest, conn: Connection): Promise<Reply> {
    const observed = services.operators.requests.begin(request.method, request.url, request.headers, request.remoteAddress);
    let routed: Promise<Reply>;
    try {
      routed = route(request, conn, observed);
    } catch (err) {
      return Promise.resolve(failed(observed, err));
    }
    return routed.then(
      (reply) => {
        observed.finish(reply.status);
        // Every reply route() gives is this request's own object (envelope copies a handler's raw reply): tagged in
        // place, not copied (a copy per poll answer showed in profiles).
        reply.requestId = observed.id;
        return reply;
      },
      (err) => failed(observed, err),
    );
  };

  /** Not itself async (a parked request holds one frame less): a route not found throws at once, inside handle's try. */
  function route(request: IncomingRequest, conn: Connection, observed: ObservedRequest): Promise<Reply> {
    const url = request.url;
    const match = url.startsWith(API_PREFIX + '/') ? api.match(request.method, url.slice(API_PREFIX.length)) : root.match(request.method, url);
    observed.route = routes.get(match.endpoint)!;
    if (match.endpoint.secretPath) observed.path = observed.route;
    if (match.endpoint.errorFormat === 'html') {
      return run(request, conn, match, observed).catch((err) => {
        if (!(err instanceof ApiError)) throw err;
        return htmlErrorPage(err);
      });
    }
    return run(request, conn, match, observed);
  }

  /**
   * Checks a credential under the password-attempt limit of an address (and account):
   * refused (429) while failures have spent it, and each failure (`failed` tells which errors are wrong guesses)
   * spends one attempt.
   */
  function guarded<T>(address: string, account: string, check: () => T, failed: (err: ApiError) => boolean): T {
    services.rateLimiter.credentialCheck(address, account);
    try {
      return check();
    } catch (err) {
      if (err instanceof ApiError && failed(err)) services.rateLimiter.credentialFailed(address, account);
      throw err;
    }
  }

  async function run(request: IncomingRequest, conn: Connection, { endpoint, pathParams }: Match, observed: ObservedRequest): Promise<Reply> {
    const authorization = request.headers.authorization;
    const address = request.remoteAddress;
    if (endpoint.auth === 'operator') {
      guarded(address, '', () => requireOperatorToken(services.config.operatorToken, authorization), (e) => e.message === errors.invalidOperatorToken().message);
    }
    const forServer = endpoint.auth === 'operator' || endpoint.auth === 'public';
    const host = request.headers.host;
    const realm = forServer ? null : (services.realms.loadedForHost(host) ?? (await services.realms.forHost(host)));
    observed.realmId = realm?.id ?? null;
    let user = null;
    if (realm && (endpoint.auth === 'user' || (endpoint.auth === 'optional' && authorization !== undefined))) {
      // API keys are guessed per account: failures lock that account out from this address, not the address.
      user = guarded(address, basicUsername(authorization) ?? '', () => authenticate(realm.state, authorization), (e) => e.code === 'INVALID_API_KEY');
      observed.userId = user.id;
      if (user.isBot) checkBotAccess(endpoint, user);
    }
    // A deactivated organization serves nobody, spectators included.
    else if (realm && endpoint.auth === 'optional' && realm.state.realm.deactivated) throw errors.realmDeactivated();
    // Credentials nobody checked do not buy a place in the authenticated body budget.
    if (user === null && endpoint.auth !== 'operator') request.body.anonymous();
    const limits = endpoint.rateLimited ? services.rateLimiter.request(user?.id ?? null, request.remoteAddress) : null;
    const bodyLimit = endpoint.maxBodyBytes;
    if (bodyLimit !== undefined) request.body.limit(bodyLimit, () => errors.bodyTooLarge(bodyLimit));
    const raw = endpoint.body === 'stream' || request.body.empty ? NO_BODY : await request.body.readAll();
    const read = readParams(request.query, request.headers['content-type'] ?? '', raw);
    const params = read instanceof Promise ? await read : read;
    for (const k in pathParams) params.fields.set(k, pathParams[k]!);
    const parsed = endpoint.parse(params.fields);
    // Server endpoints' handlers are typed with a null realm (RequestContext<'operator' | 'public'>).
    const ctx: RequestContext = { realm: realm as RealmHandle, user, services, request, conn, files: params.files };
    const data = endpoint.handle(ctx, parsed.values);
    // A handler that waits (a parked poll) is waited for in a small frame of its own, not in this one.
    return data instanceof Promise ? settled(endpoint, data, limits, parsed.ignored) : envelope(endpoint, data, limits, parsed.ignored);
  }
}

async function settled(endpoint: Endpoint, data: Promise<Record<string, unknown> | RawReply>, limits: RateDecision | null, ignored: string[]): Promise<Reply> {
  return envelope(endpoint, await data, limits, ignored);
}

/** A handler's answer as the reply: the success envelope (with the parameters it ignored), or its own raw reply; with
 *  the rate-limit headers. */
function envelope(endpoint: Endpoint, data: Record<string, unknown> | RawReply, limits: RateDecision | null, ignored: string[]): Reply {
  // A raw reply may be a constant (a page): copied, since the pipeline tags the reply it returns with its request id.
  if (data instanceof RawReply) return limits ? { ...data.reply, headers: { ...limits.headers, ...data.reply.headers } } : { ...data.reply };
  const body: Record<string, unknown> = { result: 'success', msg: '', ...data };
  if (ignored.length > 0) body.ignored_parameters_unsupported = ignored;
  return { status: 200, headers: limits?.headers, body: endpoint.serialize(body) };
}

/** The envelope of a request's failure, recorded (an unexpected one with its error). */
function failed(observed: ObservedRequest, err: unknown): Reply {
  let unexpected = false;
  const reply = errorReply(err, () => (unexpected = true));
  observed.finish(reply.status, unexpected ? (err ?? new Error(String(err))) : undefined);
  return { ...reply, requestId: observed.id };
}
