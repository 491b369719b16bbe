// Linkifiers (administrators): adding, changing, removing and ordering them, with pattern and URL-template
// validation; realm_linkifiers events reach only clients with the linkifier_url_template capability.
import type { RealmEvent } from '../../bus/events.js';
import { errors } from '../../errors.js';
import { validateLinkifierPattern, validateUrlTemplate } from '../../markdown/index.js';
import type { Linkifier } from '../../model/messages.js';
import type { CommandDef } from '../commands.js';
import { activeUserIds, actor, requireAdmin } from '../access/roles.js';
import type { RealmState } from '../state.js';

export type LinkifierInput =
  | { userId: number; op: 'add'; pattern: string; urlTemplate: string }
  | { userId: number; op: 'update'; id: number; pattern: string; urlTemplate: string }
  | { userId: number; op: 'remove'; id: number }
  | { userId: number; op: 'reorder'; ids: number[] };

export interface LinkifierResult {
  linkifiers: Linkifier[];
  /** The new linkifier's ID (op add). */
  id?: number;
}

export function formatLinkifiers(list: Linkifier[]): Record<string, unknown>[] {
  return list.map((l) => ({ pattern: l.pattern, url_template: l.urlTemplate, id: l.id }));
}

function checkDefinition(state: RealmState, pattern: string, urlTemplate: string, exceptId?: number): void {
  const patternError = validateLinkifierPattern(pattern);
  if (patternError) throw errors.linkifierInvalid('pattern', patternError);
  const templateError = validateUrlTemplate(urlTemplate, pattern);
  if (templateError) throw errors.linkifierInvalid('url_template', templateError);
  if (state.messages.linkifiers.some((l) => l.pattern === pattern && l.id !== exceptId)) {
    throw errors.linkifierInvalid('__all__', 'Linkifier with this Pattern already exists.');
  }
}

function existing(state: RealmState, id: number): Linkifier {
  const l = state.messages.linkifiers.find((x) => x.id === id);
  if (!l) throw errors.linkifierNotFound();
  return l;
}

export const changeLinkifiers: CommandDef<LinkifierInput, LinkifierInput, LinkifierResult> = {
  check(state, input) {
    requireAdmin(actor(state, input.userId));
    switch (input.op) {
      case 'add':
        checkDefinition(state, input.pattern, input.urlTemplate);
        break;
      case 'update':
        existing(state, input.id);
        checkDefinition(state, input.pattern, input.urlTemplate, input.id);
        break;
      case 'remove':
        existing(state, input.id);
        break;
      case 'reorder': {
        if (new Set(input.ids).size < input.ids.length) throw errors.linkifierOrderDuplicates();
        const have = new Set(state.messages.linkifiers.map((l) => l.id));
        if (have.size !== input.ids.length || !input.ids.every((id) => have.has(id))) throw errors.linkifierOrderIncomplete();
      }
    }
    return input;
  },
  async write(t, p, state) {
    let id: number | undefined;
    if (p.op === 'add') id = await t.linkifiers.add(state.realm.id, p.pattern, p.urlTemplate);
    else if (p.op === 'update') await t.linkifiers.update(p.id, p.pattern, p.urlTemplate);
    else if (p.op === 'remove') await t.linkifiers.remove(p.id);
    else await t.linkifiers.reorder(p.ids);
    return { linkifiers: await t.linkifiers.forRealm(state.realm.id), id };
  },
  apply(state, r) {
    state.messages.linkifiers = r.linkifiers;
  },
  events(state, r): RealmEvent[] {
    return [
      {
        event: { kind: 'realm_linkifiers', linkifiers: formatLinkifiers(r.linkifiers) },
        users: activeUserIds(state),
        legacy: { linkifier_url_template: [] },
      },
    ];
  },
};
