// Alert words: a user's words that flag messages containing them (has_alert_word); adding and removing them.
import { errors } from '../../errors.js';
import type { CommandDef } from '../commands.js';
import { actor } from '../access/roles.js';

/** Zulip's AlertWord.MAX_ALERT_WORD_LENGTH. */
export const MAX_ALERT_WORD_LENGTH = 100;

/** Trimmed, non-empty words within the length limit. */
export function cleanAlertWords(words: string[]): string[] {
  words.forEach((w, i) => {
    if ([...w].length > MAX_ALERT_WORD_LENGTH) throw errors.alertWordTooLong(i, MAX_ALERT_WORD_LENGTH);
  });
  return words.map((w) => w.trim()).filter((w) => w !== '');
}

export interface AlertWordsInput {
  userId: number;
  op: 'add' | 'remove';
  words: string[];
}

export interface AlertWordsResult {
  userId: number;
  words: string[];
}

export const changeAlertWords: CommandDef<AlertWordsInput, AlertWordsInput & { current: string[] }, AlertWordsResult> = {
  check(state, input) {
    actor(state, input.userId);
    return { ...input, words: cleanAlertWords(input.words), current: state.messages.wordsOf(input.userId) };
  },
  async write(t, p, state) {
    const lower = new Set(p.current.map((w) => w.toLowerCase()));
    if (p.op === 'add') {
      // Case-insensitively new words, keeping the case of the last one given.
      const fresh = new Map<string, string>();
      for (const w of p.words) if (!lower.has(w.toLowerCase())) fresh.set(w.toLowerCase(), w);
      await t.alertWords.add(state.realm.id, p.userId, [...fresh.values()]);
      return { userId: p.userId, words: [...p.current, ...fresh.values()] };
    }
    await t.alertWords.remove(p.userId, p.words);
    const gone = new Set(p.words.map((w) => w.toLowerCase()));
    return { userId: p.userId, words: p.current.filter((w) => !gone.has(w.toLowerCase())) };
  },
  apply(state, r) {
    state.messages.alertWords.set(r.userId, r.words);
  },
  events: (_state, r) => [{ event: { kind: 'alert_words', words: r.words }, users: [r.userId] }],
};
