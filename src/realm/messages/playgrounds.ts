// Code playgrounds (administrators): where a code block of a language opens; realm_playgrounds events carry the
// realm's whole list to everyone.
import type { RealmEvent } from '../../bus/events.js';
import { errors } from '../../errors.js';
import type { Playground } from '../../model/messages.js';
import type { CommandDef } from '../commands.js';
import { activeUserIds, actor, requireAdmin } from '../access/roles.js';
import type { RealmState } from '../state.js';

/** The reference's RealmPlayground.MAX_PYGMENTS_LANGUAGE_LENGTH. */
export const MAX_PYGMENTS_LANGUAGE_LENGTH = 40;

export function formatPlaygrounds(list: Playground[]): Record<string, unknown>[] {
  return list.map((p) => ({ id: p.id, name: p.name, pygments_language: p.pygmentsLanguage, url_template: p.urlTemplate }));
}

/** Variable names of an RFC 6570 URL template; null when it is not a valid template. */
export function templateVariables(template: string): string[] | null {
  const names: string[] = [];
  let i = 0;
  while (i < template.length) {
    const open = template.indexOf('{', i);
    const close = template.indexOf('}', i);
    if (open === -1) return close === -1 ? names : null;
    if (close !== -1 && close < open) return null;
    const end = template.indexOf('}', open);
    if (end === -1) return null;
    const body = template.slice(open + 1, end).replace(/^[+#./;?&]/, '');
    for (const spec of body.split(',')) {
      const m = /^([A-Za-z0-9_]|%[0-9A-Fa-f]{2})+(?:\.(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+)*(?::[1-9]\d{0,3}|\*)?$/.exec(spec);
      if (!m) return null;
      names.push(spec.replace(/(?::\d+|\*)$/, ''));
    }
    i = end + 1;
  }
  return names;
}

export interface AddPlaygroundInput {
  userId: number;
  name: string;
  pygmentsLanguage: string;
  urlTemplate: string;
}

function checkPlayground(p: AddPlaygroundInput): void {
  if (!/^[ a-zA-Z0-9_+\-./#]*$/.test(p.pygmentsLanguage)) throw errors.badRequest('Invalid characters in pygments language');
  if (p.name === '') throw errors.playgroundInvalid('name', 'This field cannot be blank.');
  if (p.pygmentsLanguage === '') throw errors.playgroundInvalid('pygments_language', 'This field cannot be blank.');
  const variables = templateVariables(p.urlTemplate);
  if (variables === null || p.urlTemplate === '') throw errors.playgroundInvalid('url_template', 'Invalid URL template.');
  if (!variables.includes('code')) throw errors.playgroundInvalid('__all__', 'Missing the required variable "code" in the URL template');
  if (new Set(variables).size !== 1) {
    throw errors.playgroundInvalid('__all__', '"code" should be the only variable present in the URL template');
  }
}

type PlaygroundsResult = { playgrounds: Playground[]; id?: number };

const playgroundsEvent = (state: RealmState, list: Playground[]): RealmEvent => ({
  event: { kind: 'realm_playgrounds', playgrounds: formatPlaygrounds(list) },
  users: activeUserIds(state),
});

const addPlayground: CommandDef<AddPlaygroundInput, AddPlaygroundInput, PlaygroundsResult> = {
  check(state, input) {
    requireAdmin(actor(state, input.userId));
    checkPlayground(input);
    return input;
  },
  async write(t, p, state) {
    const id = await t.playgrounds.add(state.realm.id, p);
    if (id === null) {
      throw errors.playgroundInvalid('__all__', 'Realm playground with this Realm, Pygments language and Name already exists.');
    }
    return { playgrounds: await t.playgrounds.forRealm(state.realm.id), id };
  },
  events: (state, r) => [playgroundsEvent(state, r.playgrounds)],
};

const removePlayground: CommandDef<{ userId: number; id: number }, { id: number }, PlaygroundsResult> = {
  check(state, input) {
    requireAdmin(actor(state, input.userId));
    return input;
  },
  async write(t, p, state) {
    if (!(await t.playgrounds.remove(state.realm.id, p.id))) throw errors.invalidPlayground();
    return { playgrounds: await t.playgrounds.forRealm(state.realm.id) };
  },
  events: (state, r) => [playgroundsEvent(state, r.playgrounds)],
};

export const playgroundCommands = { 'playgrounds.add': addPlayground, 'playgrounds.remove': removePlayground };
