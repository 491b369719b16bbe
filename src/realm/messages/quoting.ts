// Markdown for quoting one message inside another (reports, reminders): silent mentions, a fence the quoted
// content does not close, truncation with the reference's marker.
import type { User } from '../types.js';

export function silentMention(u: Pick<User, 'id' | 'fullName'>): string {
  return `@_**${u.fullName}|${u.id}**`;
}

/** The reference's get_unused_fence: backticks one longer than any fence the content opens (at least three). */
export function unusedFence(content: string): string {
  let length = 3;
  for (const m of content.matchAll(/^ {0,3}(`{3,})/gm)) length = Math.max(length, m[1]!.length + 1);
  return '`'.repeat(length);
}

/** The reference's truncate_content: at most `max` characters, ending with `marker` when cut. */
export function truncateContent(content: string, max: number, marker: string): string {
  const chars = [...content];
  return chars.length <= max ? content : chars.slice(0, max - [...marker].length).join('') + marker;
}
