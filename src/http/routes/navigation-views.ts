// Navigation views: list, add, update and remove the user's views. A fragment is a URL hash such as
// `narrow/is/alerted`: clients send it percent-encoded as one path segment, or with its slashes as they are.
import { formatNavigationView } from '../../realm/drafts/format.js';
import { endpoint, type Endpoint } from '../endpoint.js';
import { REQUEST_LIMITS } from '../../limits.js';
import { bool, optional, required, str } from '../../params.js';

/** Path segments a raw fragment may span. */
const MAX_FRAGMENT_SEGMENTS = 8;

export const getNavigationViews = endpoint({
  method: 'GET',
  path: '/navigation_views',
  auth: 'user',
  params: {},
  async handle(ctx) {
    return { navigation_views: (await ctx.services.db.navigationViews.forUser(ctx.user.id)).map(formatNavigationView) };
  },
});

export const addNavigationView = endpoint({
  method: 'POST',
  path: '/navigation_views',
  auth: 'user',
  params: { fragment: required(str({ maxLength: REQUEST_LIMITS.navigationViewFragment })), is_pinned: required(bool()), name: optional(str({ maxLength: REQUEST_LIMITS.navigationViewName })) },
  async handle(ctx, p) {
    await ctx.realm.dispatch('navigationViews.add', { userId: ctx.user.id, fragment: p.fragment, isPinned: p.is_pinned, name: p.name });
    return {};
  },
});

/** The `/navigation_views/{fragment}` endpoints for fragments of 1 to MAX_FRAGMENT_SEGMENTS segments. */
function byFragment(build: (path: string, parts: string[]) => Endpoint): Endpoint[] {
  const out: Endpoint[] = [];
  for (let n = 1; n <= MAX_FRAGMENT_SEGMENTS; n++) {
    const parts = Array.from({ length: n }, (_, i) => (i === 0 ? 'fragment' : `fragment_${i}`));
    out.push(build('/navigation_views/' + parts.map((p) => `{${p}}`).join('/'), parts));
  }
  return out;
}

const segments = (parts: string[]) => Object.fromEntries(parts.map((p) => [p, required(str())]));
const joined = (parts: string[], p: Record<string, unknown>) => parts.map((k) => p[k] as string).join('/');

const updateNavigationView = byFragment((path, parts) =>
  endpoint({
    method: 'PATCH',
    path,
    auth: 'user',
    params: { ...segments(parts), is_pinned: optional(bool()), name: optional(str({ maxLength: REQUEST_LIMITS.navigationViewName })) },
    async handle(ctx, p) {
      const { is_pinned, name } = p as { is_pinned?: boolean; name?: string };
      await ctx.realm.dispatch('navigationViews.update', { userId: ctx.user.id, fragment: joined(parts, p), isPinned: is_pinned, name });
      return {};
    },
  }),
);

const removeNavigationView = byFragment((path, parts) =>
  endpoint({
    method: 'DELETE',
    path,
    auth: 'user',
    params: segments(parts),
    async handle(ctx, p) {
      await ctx.realm.dispatch('navigationViews.remove', { userId: ctx.user.id, fragment: joined(parts, p) });
      return {};
    },
  }),
);

export const navigationViewEndpoints = [getNavigationViews, addNavigationView, ...updateNavigationView, ...removeNavigationView];
