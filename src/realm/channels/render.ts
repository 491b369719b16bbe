// Renders channel and channel folder descriptions (service-flavored Markdown) against the realm's working set.
import { defaultEmojiLookup, renderMarkdown, type RenderContext } from '../../markdown/index.js';
import { realmSetting } from '../realm-settings.js';
import type { RealmState } from '../state.js';

/** `renamed`: a channel whose new name links already (a rename in the same request). */
export function renderContext(state: RealmState, realmUrl: string, renamed?: { id: number; name: string }): RenderContext {
  return {
    userByName: (name) => {
      for (const u of state.usersById.values()) if (u.isActive && u.fullName === name) return u;
      return undefined;
    },
    userById: (id) => state.usersById.get(id),
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

/** A description as HTML; the empty description renders as the empty string. */
export function renderDescription(state: RealmState, text: string, realmUrl: string, renamed?: { id: number; name: string }): string {
  return text === '' ? '' : renderMarkdown(text, renderContext(state, realmUrl, renamed)).html;
}
