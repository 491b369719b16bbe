// The request pipeline: route → realm by host → authenticate → parameters → handler → envelope.
import { authenticate } from './auth.js';
import { readParams } from './body.js';
import { RawReply, type Endpoint, type RequestContext } from './endpoint.js';
import { ApiError, errors } from './errors.js';
import { htmlErrorPage } from './pages.js';
import type { Connection, IncomingRequest, Reply } from './respond.js';
import { Router, type Match } from './router.js';
import type { Services } from './services.js';

const API_PREFIX = '/api/v1';

export function createHandler(services: Services, endpoints: Endpoint[]) {
  const api = new Router();
  const root = new Router();
  for (const e of endpoints) (e.root ? root : api).add(e);

  return async function handle(request: IncomingRequest, conn: Connection): Promise<Reply> {
    const url = request.url;
    const match = url.startsWith(API_PREFIX + '/') ? api.match(request.method, url.slice(API_PREFIX.length)) : root.match(request.method, url);
    if (match.endpoint.errorFormat === 'html') {
      return run(request, conn, match).catch((err) => {
        if (!(err instanceof ApiError)) throw err;
        return htmlErrorPage(err);
      });
    }
    return run(request, conn, match);
  };

  async function run(request: IncomingRequest, conn: Connection, { endpoint, pathParams }: Match): Promise<Reply> {
    const realm = await services.realms.forHost(request.headers.host);
    const authorization = request.headers.authorization;
    let user = null;
    if (endpoint.auth === 'user' || (endpoint.auth === 'optional' && authorization !== undefined)) {
      user = authenticate(realm.state, authorization);
    }
    const params = await readParams(request.query, request.headers['content-type'] ?? '', request.body);
    for (const [k, v] of Object.entries(pathParams)) params.fields.set(k, v);
    const parsed = endpoint.parse(params.fields);
    const ctx: RequestContext = { realm, user, services, request, conn, files: params.files };
    const data = await endpoint.handle(ctx, parsed.values);
    if (data instanceof RawReply) return data.reply;
    const body: Record<string, unknown> = { result: 'success', msg: '', ...data };
    if (parsed.ignored.length > 0) body.ignored_parameters_unsupported = parsed.ignored;
    return { status: 200, body: endpoint.serialize(body) };
  }
}
