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
import type { Services } from './services.js';

const API_PREFIX = '/api/v1';
const NO_BODY = Buffer.alloc(0);

export function createHandler(services: Services, endpoints: Endpoint[]) {
  const api = new Router();
  const root = new Router();
  for (const e of endpoints) (e.root ? root : api).add(e);

  /** Every request: observed (request id, log line, metrics), routed, and any failure turned into the envelope. */
  return async function handle(request: IncomingRequest, conn: Connection): Promise<Reply> {
    const observed = services.operators.requests.begin(request.method, request.url, request.headers, request.remoteAddress);
    let reply: Reply;
    try {
      reply = await route(request, conn, observed);
      observed.finish(reply.status);
    } catch (err) {
      let unexpected = false;
      reply = errorReply(err, () => (unexpected = true));
      observed.finish(reply.status, unexpected ? (err ?? new Error(String(err))) : undefined);
    }
    return { ...reply, requestId: observed.id };
  };

  async function route(request: IncomingRequest, conn: Connection, observed: ObservedRequest): Promise<Reply> {
    const url = request.url;
    const match = url.startsWith(API_PREFIX + '/') ? api.match(request.method, url.slice(API_PREFIX.length)) : root.match(request.method, url);
    observed.route = (match.endpoint.root ? '' : API_PREFIX) + match.endpoint.path;
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
    const data = await endpoint.handle(ctx, parsed.values);
    if (data instanceof RawReply) return limits ? { ...data.reply, headers: { ...limits.headers, ...data.reply.headers } } : data.reply;
    const body: Record<string, unknown> = { result: 'success', msg: '', ...data };
    if (parsed.ignored.length > 0) body.ignored_parameters_unsupported = parsed.ignored;
    return { status: 200, headers: limits?.headers, body: endpoint.serialize(body) };
  }
}
