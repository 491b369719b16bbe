// The records of drafts, saved snippets and navigation views (as the repositories return them).

export type DraftType = '' | 'stream' | 'private';

export interface StoredDraft {
  id: number;
  userId: number;
  type: DraftType;
  to: number[];
  topic: string;
  content: string;
  /** Seconds, possibly with a fraction. */
  lastEditTime: number;
}

export type NewDraft = Omit<StoredDraft, 'id'>;

export interface NavigationView {
  fragment: string;
  isPinned: boolean;
  /** null for built-in views. */
  name: string | null;
}

export interface SavedSnippet {
  id: number;
  userId: number;
  title: string;
  content: string;
  /** Seconds. */
  dateCreated: number;
}
