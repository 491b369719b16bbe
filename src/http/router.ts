// Matches a method and path to an endpoint: exact paths first, then `{param}` patterns; 404 and 405 otherwise.
import type { Endpoint, Method } from './endpoint.js';
import { errors } from '../errors.js';

interface Pattern {
  segments: string[];
  byMethod: Map<Method, Endpoint>;
}

export interface Match {
  endpoint: Endpoint;
  pathParams: Record<string, string>;
}

/** The parameters of every path without any (frozen: shared). */
const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;

export class Router {
  private exact = new Map<string, Map<Method, Endpoint>>();
  /** The match of each endpoint of an exact path, made once. */
  private exactMatches = new Map<Endpoint, Match>();
  private patterns: Pattern[] = [];

  add(endpoint: Endpoint): void {
    const segments = endpoint.path.split('/').filter(Boolean);
    let byMethod: Map<Method, Endpoint>;
    if (segments.some((s) => s.startsWith('{'))) {
      let p = this.patterns.find((x) => x.segments.join('/') === segments.join('/'));
      if (!p) this.patterns.push((p = { segments, byMethod: new Map() }));
      byMethod = p.byMethod;
    } else {
      const key = '/' + segments.join('/');
      if (!this.exact.has(key)) this.exact.set(key, new Map());
      byMethod = this.exact.get(key)!;
      this.exactMatches.set(endpoint, { endpoint, pathParams: NO_PARAMS });
    }
    if (byMethod.has(endpoint.method)) throw new Error(`duplicate endpoint ${endpoint.method} ${endpoint.path}`);
    byMethod.set(endpoint.method, endpoint);
  }

  match(method: string, path: string): Match {
    const exact = this.exact.get(path);
    if (exact) {
      const endpoint = exact.get(method as Method);
      return endpoint ? this.exactMatches.get(endpoint)! : this.pick(exact, method, NO_PARAMS);
    }
    const parts = path.split('/').filter(Boolean);
    let found: { byMethod: Map<Method, Endpoint>; params: Record<string, string> } | undefined;
    for (const p of this.patterns) {
      if (p.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < parts.length && ok; i++) {
        const seg = p.segments[i]!;
        if (seg.startsWith('{')) {
          try {
            params[seg.slice(1, -1)] = decodeURIComponent(parts[i]!);
          } catch {
            throw errors.invalidParam('Malformed URL');
          }
        } else ok = seg === parts[i];
      }
      if (!ok) continue;
      if (p.byMethod.has(method as Method)) return { endpoint: p.byMethod.get(method as Method)!, pathParams: params };
      found ??= { byMethod: p.byMethod, params };
    }
    if (found) return this.pick(found.byMethod, method, found.params);
    throw errors.endpointNotFound();
  }

  private pick(byMethod: Map<Method, Endpoint>, method: string, pathParams: Record<string, string>): Match {
    const endpoint = byMethod.get(method as Method);
    if (!endpoint) throw errors.methodNotAllowed([...byMethod.keys()]);
    return { endpoint, pathParams };
  }
}
