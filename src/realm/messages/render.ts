// Rendering a message in its realm: the Markdown context from the working set (on the worker pool for what users
// write), /me detection, topic links and alert-word hits.
import { compileLinkifiers, findLinkifierMatch } from '../../markdown/linkifiers.js';
import { defaultEmojiLookup, renderMarkdown, type ImageRenderData, type MentionableUser, type RenderContext, type RenderResult } from '../../markdown/index.js';
import { renderPlainText } from '../../markdown/plain.js';
import { renderOffLoop } from '../../render-pool/index.js';
import { hasContentAccess } from '../access/channels.js';
import { customEmojiByName, emojiImageUrl } from '../files/emoji.js';
import { userSetting } from '../people/user-settings.js';
import { realmSetting } from '../realm-settings.js';
import type { RealmState } from '../state.js';
import type { User } from '../../model/realm.js';
import { topicPermalinkLookups } from './topic-permalinks.js';

const mentionable = (u: User): MentionableUser => ({ id: u.id, fullName: u.fullName, isActive: u.isActive });

/**
 * `@**Name**` lookups of one render: the realm's users indexed by lower-cased name on the first lookup, so a
 * message naming many people costs one pass over the users, not one per name. An active user wins over a
 * deactivated one of the same name; otherwise the first in the working set's order.
 */
function mentionByName(state: RealmState): (name: string) => MentionableUser | undefined {
  let index: Map<string, User> | undefined;
  return (name) => {
    if (!index) {
      index = new Map();
      for (const u of state.usersById.values()) {
        const key = u.fullName.toLowerCase();
        const seen = index.get(key);
        if (!seen || (!seen.isActive && u.isActive)) index.set(key, u);
      }
    }
    const u = index.get(name.toLowerCase());
    return u && mentionable(u);
  };
}

/**
 * The Markdown renderer's lookups for a realm, as seen by the author; `images` for inline image previews. Each
 * lookup answers only what the renderer reads (answers travel to the render pool's workers).
 */
export function renderContext(state: RealmState, author: User | null, realmUrl: string, images?: ImageRenderData): RenderContext {
  return {
    // Deactivated users and groups are found too (isActive / deactivated): the renderer makes their mentions silent.
    userByName: mentionByName(state),
    userById: (id) => {
      const u = state.usersById.get(id);
      return u && mentionable(u);
    },
    groupByName(name) {
      const g = state.groupsByName.get(name);
      return g && { id: g.id, name: g.name, deactivated: g.deactivated };
    },
    // Channel links name a channel exactly (case-sensitively) whose content the author may read, as the reference's
    // lookup does (get_stream_name_map: an administrator who only sees a private channel's settings gets no link).
    channelByName(name) {
      const c = state.channels.channelByName(name);
      if (!c || c.name !== name || (author && !hasContentAccess(state, author, c))) return undefined;
      return { id: c.id, name: c.name };
    },
    emoji(name) {
      const custom = customEmojiByName(state, name);
      if (custom) return { code: String(custom.id), type: 'realm_emoji', url: emojiImageUrl(state.realm.id, custom.fileName) };
      return defaultEmojiLookup(name);
    },
    linkifiers: state.messages.linkifiers,
    realmUrl,
    emptyTopicDisplayName: realmSetting(state, 'empty_topic_display_name'),
    // `:)` becomes an emoji only for authors who turned translate_emoticons on.
    translateEmoticons: author !== null && userSetting(author, 'translate_emoticons') === true,
    images,
  };
}

export interface Rendered extends RenderResult {
  isMeMessage: boolean;
}

function withMe(content: string, r: RenderResult): Rendered {
  // Object.assign, not `{ ...r, isMeMessage }`: a key the spread's source lacks takes V8's slow path (storedMessage).
  return Object.assign({}, r, { isMeMessage: content.startsWith('/me ') && r.html.startsWith('<p>/me ') });
}

/** Renders on the event loop: only for what the server writes itself (notices), short and of known shape. */
export function renderContent(state: RealmState, author: User | null, realmUrl: string, content: string): Rendered {
  return withMe(content, renderMarkdown(content, renderContext(state, author, realmUrl)));
}

/**
 * Renders what a user wrote on the worker pool, within its time limit (ApiError "Unable to render message"); topic
 * links get their `/with/` permalinks from the database (topic-permalinks.ts). Plain text is rendered at once (no
 * promise).
 */
export function renderAs(state: RealmState, author: User | null, realmUrl: string, content: string, images?: ImageRenderData): Rendered | Promise<Rendered> {
  // Plain text needs no lookups: answered before the context (and its closures) is made.
  const r = renderPlainText(content, state.messages.linkifiers) ?? renderOffLoop(content, renderContext(state, author, realmUrl, images), topicPermalinkLookups(state, author));
  return r instanceof Promise ? r.then((done) => withMe(content, done)) : withMe(content, r);
}

/** A rendering made before its command reached the realm actor (the command's prepare), with what it rendered. */
export interface Prerendered {
  content: string;
  rendered: Rendered;
}

/** In a command's check or write: the rendering its prepare made of exactly this content. */
export function prerendered(p: Prerendered | undefined, content: string): Rendered {
  if (p?.content !== content) throw new Error('message content reached the realm actor unrendered (no prepare step rendered it)');
  return p.rendered;
}

/** Users whose mention (directly or through a group, not silent) the rendering found. */
export function mentionedUsers(state: RealmState, r: RenderResult, candidates: Iterable<number>): Set<number> {
  const out = new Set<number>();
  const direct = new Set(r.mentionedUserIds);
  for (const id of candidates) {
    if (direct.has(id)) out.add(id);
    else for (const g of r.mentionedGroupIds) if (state.isInGroup(id, g)) out.add(id);
  }
  return out;
}

// Zulip's alert-word boundaries.
const BEFORE_OK = new Set([' ', '\n', '(', '"', '.', ',', "'", ';', '[', '*', '`', '>']);
const AFTER_OK = new Set([' ', '\n', ')', '"', '?', ':', '.', ',', "'", ';', ']', '!', '*', '`']);

/** Whether `content` contains `word` (case-insensitively) with Zulip's boundaries on both sides. */
export function containsAlertWord(content: string, word: string): boolean {
  const text = content.toLowerCase();
  const w = word.toLowerCase();
  if (w === '') return false;
  for (let at = text.indexOf(w); at >= 0; at = text.indexOf(w, at + 1)) {
    const end = at + w.length;
    const beforeOk = at === 0 || BEFORE_OK.has(text[at - 1]!);
    const afterOk = end === text.length || AFTER_OK.has(text[end]!);
    if (beforeOk && afterOk) return true;
  }
  return false;
}

/** Of these users, those with an alert word in the content. */
export function alertedUsers(state: RealmState, content: string, candidates: Iterable<number>): Set<number> {
  const out = new Set<number>();
  for (const id of candidates) {
    if (state.messages.wordsOf(id).some((w) => containsAlertWord(content, w))) out.add(id);
  }
  return out;
}

const URL_IN_TOPIC = /https?:\/\/[^\s<>"]+[^\s<>".,;:!?)\]'*]/gu;

/** Links in a topic: raw URLs and linkifier matches, in order of position. */
export function topicLinks(state: RealmState, topic: string): { text: string; url: string }[] {
  if (topic === '') return [];
  const found: { index: number; text: string; url: string }[] = [];
  for (const m of topic.matchAll(URL_IN_TOPIC)) found.push({ index: m.index!, text: m[0], url: m[0] });
  for (const l of compileLinkifiers(state.messages.linkifiers).compiled) {
    for (let from = 0, m = findLinkifierMatch(l, topic, 0); m; m = findLinkifierMatch(l, topic, from)) {
      found.push({ index: m.index, text: m.text, url: m.url });
      from = m.index + Math.max(1, m.text.length);
    }
  }
  return found.sort((a, b) => a.index - b.index).map(({ text, url }) => ({ text, url }));
}
