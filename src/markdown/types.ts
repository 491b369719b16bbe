// Types shared by the Markdown renderer: the caller's lookups, the result, and the per-render env.
import type { RE2JS } from 're2js';
import type { ImageRenderData } from './images.js';

/** KaTeX work a message may still do (math.ts counts it down). */
export interface TexBudget {
  formulas: number;
  chars: number;
}

export interface RenderContext {
  /** Lookups supplied by the caller (the realm's in-memory state); all synchronous. */
  /** @**Name** (case-insensitive, as the reference); deactivated users too, with isActive false: their mentions are silent. */
  userByName(name: string): MentionableUser | undefined;
  /** @**Name|id**, @**|id**; deactivated users too, as above. */
  userById(id: number): MentionableUser | undefined;
  /** @*group*; deactivated groups too, with deactivated true: their mentions are silent. */
  groupByName(name: string): { id: number; name: string; deactivated?: boolean } | undefined;
  /** #**channel**, #**channel>topic**, #**channel>topic@id**: the exact (case-sensitive) name, as the reference. */
  channelByName(name: string): { id: number; name: string } | undefined;
  /**
   * The newest message in a topic the author can see, for the `/with/<id>` permalink of a topic link (optional).
   * One key, `topicKey(channelId, topic)`: lookups take a single argument (the render pool tables them by it).
   */
  topicLatestMessageId?(key: string): number | undefined;
  emoji(name: string): { code: string; type: 'unicode_emoji' | 'realm_emoji'; url?: string } | undefined; // :name:
  linkifiers: { id: number; pattern: string; urlTemplate: string }[];
  /** e.g. http://127.0.0.1:9991; links into the realm are rendered relative. */
  realmUrl: string;
  emptyTopicDisplayName?: string;
  /** The author's `translate_emoticons` setting: `:)` and friends become emoji. */
  translateEmoticons?: boolean;
  /** Inline image previews: the realm's setting, the proxy's signing key and the linked uploads' thumbnails. */
  images?: ImageRenderData;
}

export interface MentionableUser {
  id: number;
  fullName: string;
  /** False for a deactivated user (undefined means active). */
  isActive?: boolean;
}

export interface RenderResult {
  html: string;
  /** Direct (non-silent) user mentions, each once (arrays, not sets: a rendering travels in command inputs). */
  mentionedUserIds: number[];
  mentionedGroupIds: number[];
  /** Wildcard mentions: all, everyone, channel and stream => stream; topic => topic. */
  wildcards: { stream: boolean; topic: boolean };
  hasLink: boolean;
  hasImage: boolean;
  /** A link to /user_uploads/. */
  hasAttachment: boolean;
  linkifierErrors?: string[];
}

/** A result that found nothing (no mention, link or image): where every render starts. */
export function resultOf(html: string): RenderResult {
  return { html, mentionedUserIds: [], mentionedGroupIds: [], wildcards: { stream: false, topic: false }, hasLink: false, hasImage: false, hasAttachment: false };
}

/** A linkifier that passed validation and compiled. */
export interface CompiledLinkifier {
  id: number;
  /** The pattern on RE2: matching is linear in the text. */
  re: RE2JS;
  groupNames: string[];
  urlTemplate: string;
  /** Work still allowed for this linkifier in the current message. */
  budget: { chars: number; matches: number };
}

/** markdown-it `env` for one render: the caller's context plus what the rules found. */
export interface RenderEnv {
  ctx: RenderContext;
  result: RenderResult;
  linkifiers: CompiledLinkifier[];
  /** Inline image previews already emitted (Zulip shows each URL once). */
  previewed: Set<string>;
  /** KaTeX work still allowed in this message. */
  tex: TexBudget;
}

/** The key of `RenderContext.topicLatestMessageId`: the channel's ID, a newline, the topic. */
export function topicKey(channelId: number, topic: string): string {
  return `${channelId}\n${topic}`;
}
