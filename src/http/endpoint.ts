// One declaration per endpoint: method, path, authentication, parameter schema, handler, optional serializer.
import fastJson from 'fast-json-stringify';
import type { RealmHandle } from '../actors/realms.js';
import type { User } from '../model/realm.js';
import type { UploadedFile } from './body.js';
import { compileSchema, type ParamParser, type ParamsOf, type Schema } from '../params.js';
import type { Connection, IncomingRequest, Reply } from './respond.js';
import type { Services } from './services.js';

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE' | 'HEAD' | 'OPTIONS';

/**
 * `user`: HTTP Basic required; `none`: no credentials looked at; `optional`: a spectator when absent.
 * Endpoints of the server rather than of a realm get no realm: `operator` requires the operator token (Bearer),
 * `public` checks nothing (health probes, the dashboard's static files).
 */
export type AuthMode = 'user' | 'none' | 'optional' | 'operator' | 'public';

export interface RequestContext<A extends AuthMode = AuthMode> {
  realm: [A] extends ['operator' | 'public'] ? null : RealmHandle;
  user: A extends 'user' ? User : User | null;
  services: Services;
  request: IncomingRequest;
  conn: Connection;
  files: UploadedFile[];
}

/** Returned by a handler that answers with something other than the JSON success envelope. */
export class RawReply {
  constructor(readonly reply: Reply) {}
}

export interface EndpointDef<S extends Schema, A extends AuthMode> {
  method: Method;
  /** Below /api/v1 (or below / with `root`); `{name}` segments become parameters. */
  path: string;
  /** A page or file outside the API (sign-up pages, downloads, operator pages): `path` is absolute. */
  root?: boolean;
  /** How failures are answered: the JSON error envelope (default), or an HTML page for pages people open. */
  errorFormat?: 'json' | 'html';
  /** Counted against the rate limits (default); long-polls are not. */
  rateLimited?: boolean;
  /** The path holds a secret (an invitation or confirmation key): the request log shows the route instead. */
  secretPath?: boolean;
  /** `stream`: the body is not parsed into parameters; the handler reads `ctx.request.body` chunk by chunk. */
  body?: 'stream';
  /** A body limit below the server's (MAX_BODY_BYTES) where no valid request comes near it: refused (413) unread. */
  maxBodyBytes?: number;
  auth: A;
  /** Which bots may call it: incoming-webhook bots only where the reference allows them (sending messages);
   *  no bot at all for the reference's human-only endpoints (personal settings, presence). Default: every bot
   *  but incoming-webhook ones. */
  bots?: 'all' | 'none';
  params: S;
  handle(ctx: RequestContext<A>, params: ParamsOf<S>): Promise<Record<string, unknown> | RawReply> | Record<string, unknown> | RawReply;
  /** JSON-schema properties of the success response, compiled once with fast-json-stringify. */
  response?: Record<string, unknown>;
  /** A serializer of the success response of its own (register splices pre-serialized user records). */
  serialize?: (body: Record<string, unknown>) => string | Buffer | readonly Buffer[];
}

export interface Endpoint {
  method: Method;
  path: string;
  root: boolean;
  errorFormat: 'json' | 'html';
  rateLimited: boolean;
  secretPath: boolean;
  body: 'params' | 'stream';
  maxBodyBytes?: number;
  auth: AuthMode;
  bots: 'all' | 'none' | 'not-incoming-webhook';
  /** The declared parameters (names, types, required), for introspection. */
  schema: Schema;
  parse: ParamParser<Record<string, unknown>>;
  handle(ctx: RequestContext, params: Record<string, unknown>): Promise<Record<string, unknown> | RawReply> | Record<string, unknown> | RawReply;
  serialize(body: Record<string, unknown>): string | Buffer | readonly Buffer[];
}

function successSerializer(properties: Record<string, unknown>): (body: Record<string, unknown>) => string {
  return fastJson({
    type: 'object',
    properties: {
      result: { type: 'string' },
      msg: { type: 'string' },
      ignored_parameters_unsupported: { type: 'array', items: { type: 'string' } },
      ...properties,
    },
  });
}

export function endpoint<S extends Schema, A extends AuthMode>(def: EndpointDef<S, A>): Endpoint {
  return {
    method: def.method,
    path: def.path,
    root: def.root ?? false,
    errorFormat: def.errorFormat ?? 'json',
    rateLimited: def.rateLimited ?? true,
    secretPath: def.secretPath ?? false,
    body: def.body ?? 'params',
    maxBodyBytes: def.maxBodyBytes,
    auth: def.auth,
    bots: def.bots ?? 'not-incoming-webhook',
    schema: def.params,
    parse: compileSchema(def.params) as ParamParser<Record<string, unknown>>,
    handle: def.handle as Endpoint['handle'],
    serialize: def.serialize ?? (def.response ? successSerializer(def.response) : JSON.stringify),
  };
}
