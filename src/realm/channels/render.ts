// Renders channel and channel folder descriptions (service-flavored Markdown) against the realm's working set, on
// the worker pool in the prepare step of the commands that store them.
import { defaultEmojiLookup, type RenderContext } from '../../markdown/index.js';
import { renderOffLoop } from '../../render-pool/index.js';
import { realmSetting } from '../realm-settings.js';
import type { RealmState } from '../state.js';

/** `renamed`: a channel whose new name links already (a rename in the same request). */
export function renderContext(state: RealmState, realmUrl: string, renamed?: { id: number; name: string }): RenderContext {
  return {
    // Answers carry only what the renderer reads (they travel to the render pool's workers).
    userByName: (name) => {
      for (const u of state.usersById.values()) if (u.isActive && u.fullName === name) return { id: u.id, fullName: u.fullName, isActive: u.isActive };
      return undefined;
    },
    userById: (id) => {
      const u = state.usersById.get(id);
      return u && { id: u.id, fullName: u.fullName, isActive: u.isActive };
    },
    groupByName: (name) => {
      const g = state.groupsByName.get(name);
      return g && !g.deactivated ? g : undefined;
    },
    channelByName: (name) => {
      if (renamed && renamed.name.toLowerCase() === name.toLowerCase()) return renamed;
      const ch = state.channels.channelByName(name);
      return ch && ch.id !== renamed?.id ? ch : undefined;
    },
    emoji: defaultEmojiLookup,
    linkifiers: [],
    realmUrl,
    emptyTopicDisplayName: realmSetting(state, 'empty_topic_display_name'),
  };
}

/** Descriptions rendered on the worker pool before their command reached the realm actor: each text and its HTML
 *  (a list, not a Map: it is part of the command's input, plain data). */
export type RenderedDescriptions = { text: string; html: string }[];

/**
 * A command's prepare step for descriptions: each text (those given) rendered on the pool into
 * `input.renderedDescriptions`; the input itself, at once, when nothing is left to render.
 */
export function prerenderDescriptions<I extends { renderedDescriptions?: RenderedDescriptions }>(
  state: RealmState,
  input: I,
  texts: (string | undefined)[],
  realmUrl: string,
  renamed?: { id: number; name: string },
): I | Promise<I> {
  const todo = [...new Set(texts)].filter((t): t is string => t !== undefined && t !== '' && !input.renderedDescriptions?.some((d) => d.text === t));
  if (todo.length === 0) return input;
  const ctx = renderContext(state, realmUrl, renamed);
  return Promise.all(todo.map(async (text) => ({ text, html: (await renderOffLoop(text, ctx)).html }))).then((done) => ({
    ...input,
    renderedDescriptions: [...(input.renderedDescriptions ?? []), ...done],
  }));
}

/** A description as HTML, as its command's prepare rendered it; the empty description renders as the empty string. */
export function renderDescription(text: string, rendered: RenderedDescriptions | undefined): string {
  if (text === '') return '';
  const html = rendered?.find((d) => d.text === text)?.html;
  if (html === undefined) throw new Error('a description reached the realm actor unrendered (no prepare step rendered it)');
  return html;
}
