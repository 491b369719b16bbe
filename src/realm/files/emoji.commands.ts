// Realm commands for custom emoji: add one (its image already stored) and deactivate one; both publish realm_emoji.
import type { RealmEvent } from '../../bus/events.js';
import { errors } from '../../errors.js';
import { emojiByName } from '../../markdown/index.js';
import type { CommandDef } from '../commands.js';
import { activeUserIds, actor, isAdmin } from '../access/roles.js';
import type { RealmState } from '../state.js';
import type { User } from '../../model/realm.js';
import { checkEmojiName, realmEmojiDict } from './emoji.js';
import type { CustomEmoji } from './files-state.js';

/** Whether `user` may add an emoji called `name` (checked before the image is stored, and again in the command). */
export function checkCanAddEmoji(state: RealmState, user: User, name: string): void {
  checkEmojiName(name);
  if (!state.userHasRealmPermission(user.id, 'can_add_custom_emoji_group')) throw errors.insufficientPermission();
  if (state.files.activeByName(name)) throw errors.badRequest('A custom emoji with this name already exists.');
  if (emojiByName(name) !== undefined && !isAdmin(user)) throw errors.badRequest('Only administrators can override default emoji.');
}

function realmEmojiEvent(state: RealmState): RealmEvent[] {
  return [{ event: { kind: 'realm_emoji', emoji: realmEmojiDict(state) }, users: activeUserIds(state) }];
}

interface AddInput {
  actorId: number;
  name: string;
  fileName: string;
}

const addRealmEmoji: CommandDef<AddInput, AddInput & { realmId: number }, CustomEmoji> = {
  check(state, input) {
    checkCanAddEmoji(state, actor(state, input.actorId), input.name);
    return { ...input, realmId: state.realm.id };
  },
  write: (t, p) => t.realmEmoji.add(p.realmId, p.name, p.fileName, p.actorId),
  apply(state, emoji) {
    state.files.put(emoji);
  },
  events: realmEmojiEvent,
};

const deactivateRealmEmoji: CommandDef<{ actorId: number; name: string }, CustomEmoji, CustomEmoji> = {
  check(state, input) {
    const user = actor(state, input.actorId);
    const emoji = state.files.activeByName(input.name);
    if (!emoji) throw errors.emojiDoesNotExist(input.name);
    if (!isAdmin(user) && emoji.authorId !== null && emoji.authorId !== user.id) {
      throw errors.badRequest('Must be an organization administrator or emoji author');
    }
    return emoji;
  },
  async write(t, emoji) {
    await t.realmEmoji.deactivate(emoji.id);
    return { ...emoji, deactivated: true };
  },
  apply(state, emoji) {
    state.files.put(emoji);
  },
  events: realmEmojiEvent,
};

export const emojiCommands = {
  'emoji.add': addRealmEmoji,
  'emoji.deactivate': deactivateRealmEmoji,
};
