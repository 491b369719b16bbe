// Realm commands on a user's navigation views: settings for built-in views (no name) and named custom views.
import type { NavigationViewEvent, RealmEvent } from '../../bus/events.js';
import { errors } from '../../errors.js';
import type { NavigationView } from '../../model/drafts.js';
import type { CommandDef } from '../commands.js';
import { actor } from '../access/roles.js';

/** Fragments of the views the client has built in (Zulip's BUILT_IN_VIEW_FRAGMENTS). */
export const BUILT_IN_VIEW_FRAGMENTS: ReadonlySet<string> = new Set([
  'inbox',
  'recent',
  'feed',
  'drafts',
  'narrow/has/reaction/sender/me',
  'narrow/is/mentioned',
  'narrow/is/starred',
  'scheduled',
  'reminders',
]);

const viewEvent = (userId: number, event: NavigationViewEvent): RealmEvent => ({ event, users: [userId] });

function cleanFragment(raw: string): string {
  const fragment = raw.trim();
  if (fragment === '') throw errors.blankParam('fragment');
  return fragment;
}

type AddInput = { userId: number; fragment: string; isPinned: boolean; name?: string };
type AddPlan = { userId: number; view: NavigationView };

const addView: CommandDef<AddInput, AddPlan, AddPlan> = {
  batchable: true,
  check(state, input) {
    actor(state, input.userId);
    const fragment = cleanFragment(input.fragment);
    const name = input.name === undefined ? null : input.name.trim();
    if (BUILT_IN_VIEW_FRAGMENTS.has(fragment)) {
      if (name !== null) throw errors.navigationViewBuiltInName();
    } else if (!name) {
      throw errors.navigationViewNeedsName();
    }
    return { userId: input.userId, view: { fragment, isPinned: input.isPinned, name } };
  },
  async write(t, p, state) {
    if (await t.navigationViews.exists(p.userId, p.view.fragment, p.view.name)) throw errors.navigationViewExists();
    await t.navigationViews.insert(state.realm.id, p.userId, p.view);
    return p;
  },
  events: (_state, p) => [viewEvent(p.userId, { kind: 'navigation_view', op: 'add', view: p.view })],
};

type UpdateInput = { userId: number; fragment: string; isPinned?: boolean; name?: string };
type UpdateResult = { userId: number; fragment: string; data: Record<string, unknown> };

const updateView: CommandDef<UpdateInput, UpdateInput, UpdateResult> = {
  batchable: true,
  check(state, input) {
    actor(state, input.userId);
    const fragment = cleanFragment(input.fragment);
    const name = input.name?.trim();
    if (name !== undefined && BUILT_IN_VIEW_FRAGMENTS.has(fragment)) throw errors.navigationViewBuiltInName();
    if (name === '') throw errors.navigationViewNeedsName();
    if (name === undefined && input.isPinned === undefined) throw errors.noNewValues();
    return { userId: input.userId, fragment, name, isPinned: input.isPinned };
  },
  async write(t, p) {
    const current = await t.navigationViews.get(p.userId, p.fragment);
    if (!current) throw errors.navigationViewNotFound();
    if (p.name !== undefined && p.name !== current.name && (await t.navigationViews.exists(p.userId, null, p.name))) {
      throw errors.navigationViewExists();
    }
    await t.navigationViews.update(p.userId, p.fragment, { name: p.name, isPinned: p.isPinned });
    const data: Record<string, unknown> = {};
    if (p.name !== undefined) data.name = p.name;
    if (p.isPinned !== undefined) data.is_pinned = p.isPinned;
    return { userId: p.userId, fragment: p.fragment, data };
  },
  events: (_state, r) => [viewEvent(r.userId, { kind: 'navigation_view', op: 'update', fragment: r.fragment, data: r.data })],
};

type RemovePlan = { userId: number; fragment: string };

const removeView: CommandDef<RemovePlan, RemovePlan, RemovePlan> = {
  batchable: true,
  check(state, input) {
    actor(state, input.userId);
    return { userId: input.userId, fragment: cleanFragment(input.fragment) };
  },
  async write(t, p) {
    if (!(await t.navigationViews.delete(p.userId, p.fragment))) throw errors.navigationViewNotFound();
    return p;
  },
  events: (_state, p) => [viewEvent(p.userId, { kind: 'navigation_view', op: 'remove', fragment: p.fragment })],
};

export const navigationViewCommands = {
  'navigationViews.add': addView,
  'navigationViews.update': updateView,
  'navigationViews.remove': removeView,
};
