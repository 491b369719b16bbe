// Types shared by the Markdown renderer: the caller's lookups, the result, and the per-render env.
import type { RE2JS } from 're2js';
import type { ImageRenderData } from './images.js';

export interface RenderContext {
  /** Lookups supplied by the caller (the realm's in-memory state); all synchronous. */
  userByName(name: string): { id: number; fullName: string } | undefined; // @**Name**
  userById(id: number): { id: number; fullName: string } | undefined; // @**Name|id**
  groupByName(name: string): { id: number; name: string } | undefined; // @*group*
  channelByName(name: string): { id: number; name: string } | undefined; // #**channel**, #**channel>topic**
  emoji(name: string): { code: string; type: 'unicode_emoji' | 'realm_emoji'; url?: string } | undefined; // :name:
  linkifiers: { id: number; pattern: string; urlTemplate: string }[];
  /** e.g. http://127.0.0.1:9991; links into the realm are rendered relative. */
  realmUrl: string;
  emptyTopicDisplayName?: string;
  /** Inline image previews: the realm's setting, the proxy's signing key and the linked uploads' thumbnails. */
  images?: ImageRenderData;
}

export interface RenderResult {
  html: string;
  /** Direct (non-silent) user mentions. */
  mentionedUserIds: Set<number>;
  mentionedGroupIds: Set<number>;
  /** Wildcard mentions: all, everyone, channel and stream => stream; topic => topic. */
  wildcards: { stream: boolean; topic: boolean };
  hasLink: boolean;
  hasImage: boolean;
  /** A link to /user_uploads/. */
  hasAttachment: boolean;
  linkifierErrors?: string[];
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
}
