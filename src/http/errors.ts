// The one error type of the API and the catalogue of errors it raises.

export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number = 400,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

const BASIC_CHALLENGE = { 'WWW-Authenticate': 'Basic realm="palaver"' };

/** Every error the server answers with is built here, so codes, texts and statuses stay consistent. */
export const errors = {
  badRequest: (msg: string, extra: Record<string, unknown> = {}) => new ApiError('BAD_REQUEST', msg, 400, extra),
  missingArgument: (name: string) =>
    new ApiError('REQUEST_VARIABLE_MISSING', `Missing '${name}' argument`, 400, { var_name: name }),
  invalidParam: (msg: string) => new ApiError('BAD_REQUEST', msg, 400),
  noNewValues: () => new ApiError('BAD_REQUEST', 'Client did not pass any new values.', 400),
  insufficientPermission: () => new ApiError('BAD_REQUEST', 'Insufficient permission', 400),
  notFound: (msg = 'Not Found') => new ApiError('NOT_FOUND', msg, 404),
  endpointNotFound: () => new ApiError('NOT_FOUND', 'Not Found', 404),
  methodNotAllowed: (allowed: string[]) =>
    new ApiError('METHOD_NOT_ALLOWED', 'Method Not Allowed', 405, {}, { Allow: allowed.join(', ') }),
  bodyTooLarge: (limit: number) =>
    new ApiError('REQUEST_TOO_LARGE', `Request body is too large (limit: ${limit} bytes)`, 413),
  unsupportedMediaType: (type: string) =>
    new ApiError('BAD_REQUEST', `Unsupported content type: ${type}`, 415),
  malformedBody: (msg: string) => new ApiError('BAD_REQUEST', `Malformed request body: ${msg}`, 400),
  invalidSubdomain: () => new ApiError('INVALID_SUBDOMAIN', 'Invalid subdomain', 404),

  // Authentication (401 with a Basic challenge).
  notLoggedIn: () =>
    new ApiError('UNAUTHORIZED', 'Not logged in: API authentication or user session required', 401, {}, BASIC_CHALLENGE),
  basicAuthRequired: () =>
    new ApiError('UNAUTHORIZED', 'This endpoint requires HTTP basic authentication.', 401, {}, BASIC_CHALLENGE),
  invalidBasicHeader: () =>
    new ApiError('UNAUTHORIZED', 'Invalid authorization header for basic auth', 401, {}, BASIC_CHALLENGE),
  invalidApiKey: () => new ApiError('INVALID_API_KEY', 'Invalid API key', 401, {}, BASIC_CHALLENGE),
  userDeactivated: () => new ApiError('USER_DEACTIVATED', 'Account is deactivated', 401, {}, BASIC_CHALLENGE),
  realmDeactivated: () =>
    new ApiError('REALM_DEACTIVATED', 'This organization has been deactivated', 401, {}, BASIC_CHALLENGE),
  authenticationFailed: () =>
    new ApiError('AUTHENTICATION_FAILED', 'Your username or password is incorrect', 401),

  badEventQueueId: (queueId: string) =>
    new ApiError('BAD_EVENT_QUEUE_ID', `Bad event queue ID: ${queueId}`, 400, { queue_id: queueId }),
  anonymousParameter: (name: string) => new ApiError('BAD_REQUEST', `Invalid '${name}' parameter for anonymous request`, 400),

  rateLimited: (retryAfter: number) =>
    new ApiError('RATE_LIMIT_HIT', 'API usage exceeded rate limit', 429, { 'retry-after': retryAfter }),
  unavailable: (msg = 'Service temporarily unavailable') => new ApiError('SERVICE_UNAVAILABLE', msg, 503),
  internal: () => new ApiError('INTERNAL_SERVER_ERROR', 'Internal server error', 500),
} as const;

export interface ErrorReply {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/** Turns any thrown value into the error envelope. Unexpected errors are reported through `onUnexpected`. */
export function toErrorReply(err: unknown, onUnexpected: (err: unknown) => void): ErrorReply {
  const apiError = err instanceof ApiError ? err : undefined;
  if (!apiError) onUnexpected(err);
  const e = apiError ?? errors.internal();
  return {
    status: e.status,
    headers: e.headers,
    body: { result: 'error', msg: e.message, code: e.code, ...e.extra },
  };
}
