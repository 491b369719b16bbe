// The command interface at the type level: `npm run build` compiles this file (so `npm test` fails when it breaks);
// nothing runs it. Every line under `@ts-expect-error` must fail to compile (the directive itself is an error
// when the line compiles), and every other line must compile: dispatch is typed by kind, in input and result.
import type { RealmHandle } from '../../src/actors/realms.js';
import type { CommandInput, CommandKind, CommandResult } from '../../src/realm/registry.js';

declare const realm: RealmHandle;

export async function dispatchIsTypedByKind(): Promise<void> {
  // The right input compiles, and the result has the command's own type.
  const flags = await realm.dispatch('flags.update', { userId: 1, op: 'add', flag: 'starred', messages: [1, 2] });
  const changed: number[] = flags.changed;
  const { apiKey } = await realm.dispatch('users.regenerateApiKey', { actorId: 1, userId: 2 });
  const key: string = apiKey;
  // A command that takes no input is dispatched without one.
  await realm.dispatch('realm.reload');

  // @ts-expect-error a wrong input type: userId is a number
  await realm.dispatch('users.regenerateApiKey', { actorId: 1, userId: '2' });
  // @ts-expect-error a wrong value in a union: op is 'add' or 'remove'
  await realm.dispatch('flags.update', { userId: 1, op: 'toggle', flag: 'starred', messages: [] });
  // @ts-expect-error a missing field: userId
  await realm.dispatch('users.regenerateApiKey', { actorId: 1 });
  // @ts-expect-error a missing input
  await realm.dispatch('flags.update');
  // @ts-expect-error an unknown kind
  await realm.dispatch('messages.teleport', { userId: 1 });
  // @ts-expect-error an old name (camelCase kinds became noun.verb)
  await realm.dispatch('updateFlags', { userId: 1, op: 'add', flag: 'starred', messages: [] });
  // @ts-expect-error reading the result as the wrong type
  const wrong: string = flags.changed;
  // @ts-expect-error reading a field the result does not have
  const missing: unknown = flags.apiKey;
  // @ts-expect-error the caller cannot assert its own result type: the type argument is the kind
  await realm.dispatch<{ apiKey: number }>('users.regenerateApiKey', { actorId: 1, userId: 2 });

  void [changed, key, wrong, missing];
}

// The mapped types name a command's input and result by kind.
export const input: CommandInput<'users.regenerateApiKey'> = { actorId: 1, userId: 2 };
// @ts-expect-error the input type of another command
export const otherInput: CommandInput<'users.regenerateApiKey'> = { userId: 1, op: 'add', flag: 'read', messages: [] };
export type RegenerateResult = CommandResult<'users.regenerateApiKey'>;
// @ts-expect-error the result type is the command's, not any
export const wrongResult: RegenerateResult = 42;
export const kind: CommandKind = 'messages.send';
// @ts-expect-error kinds are the registry's keys only
export const notAKind: CommandKind = 'sendMessage';
