// Markdown for quoting one message inside another (reports, reminders): silent mentions and a fence the quoted
// content does not close.
import type { User } from '../../model/realm.js';

export function silentMention(u: Pick<User, 'id' | 'fullName'>): string {
  return `@_**${u.fullName}|${u.id}**`;
}

/** The reference's get_unused_fence: backticks one longer than any fence the content opens (at least three). */
export function unusedFence(content: string): string {
  let length = 3;
  for (const m of content.matchAll(/^ {0,3}(`{3,})/gm)) length = Math.max(length, m[1]!.length + 1);
  return '`'.repeat(length);
}
