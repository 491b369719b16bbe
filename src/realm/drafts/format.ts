// Drafts, saved snippets and navigation views as the API returns them.
import type { StoredDraft, NavigationView, SavedSnippet } from '../../model/drafts.js';

export function formatDraft(d: StoredDraft): Record<string, unknown> {
  return { id: d.id, type: d.type, to: d.to, topic: d.topic, content: d.content, timestamp: Math.floor(d.lastEditTime) };
}

export function formatSnippet(s: SavedSnippet): Record<string, unknown> {
  return { id: s.id, title: s.title, content: s.content, date_created: s.dateCreated };
}

export function formatNavigationView(v: NavigationView): Record<string, unknown> {
  return { fragment: v.fragment, is_pinned: v.isPinned, name: v.name };
}
