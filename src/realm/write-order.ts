// The order a batch's writes go in: commands of one kind together wherever they stand in the batch, where that
// changes no result (pure; batch.ts writes the groups).
import type { Touched } from './commands.js';

/** A command of the batch as the order sees it: its kind and what it touches (undefined: it cannot say). */
export interface Placed {
  kind: string;
  touched: Touched | undefined;
}

/**
 * The batch's commands (given in mailbox order) in groups of one kind, in the order to write them; each group lists
 * indexes into `commands`, ascending.
 *
 * Why the results stay those of the mailbox order: a command joins the last group of its kind only when no command
 * in a later group (all before it in the mailbox, all of other kinds) conflicts with it: it shares a key with none
 * (see CommandDef.touches), and both say what they touch. Moving it ahead of commands it commutes with changes
 * neither's result nor the rows they leave; otherwise it starts a new group at the end, after everything before it.
 * Commands of one kind never pass each other (a group's writeBatch writes its plans as if one after another), so
 * message IDs keep the mailbox order. A command that cannot say what it touches conflicts with every other kind's,
 * so nothing passes it and it passes nothing (the order of before: runs of one kind). Answers, memory and events do
 * not follow this order: the realm actor settles a batch's commands in mailbox order after its commit.
 */
export function writeOrder(commands: readonly Placed[]): number[][] {
  const groups: number[][] = [];
  const lastOfKind = new Map<string, number>();
  /** For each key, the last group holding it; and the last group holding a command that cannot say. */
  const lastWithKey = new Map<string, number>();
  let lastOpaque = -1;
  // Each command costs its own keys' lookups, whatever the number of groups before it.
  commands.forEach((c, index) => {
    const joinAt = lastOfKind.get(c.kind);
    const joinable =
      joinAt !== undefined &&
      (joinAt === groups.length - 1 || (c.touched !== undefined && lastOpaque <= joinAt && c.touched.every((k) => (lastWithKey.get(k) ?? -1) <= joinAt)));
    const at = joinable ? joinAt : groups.length;
    if (!joinable) {
      lastOfKind.set(c.kind, at);
      groups.push([]);
    }
    groups[at]!.push(index);
    if (c.touched === undefined) lastOpaque = Math.max(lastOpaque, at);
    else for (const k of c.touched) lastWithKey.set(k, Math.max(lastWithKey.get(k) ?? -1, at));
  });
  return groups;
}

/**
 * A bulk write (CommandDef.writeBatch) in rounds: consecutive plans sharing no key go together, a plan sharing one
 * with its round starts the next, and a plan without keys (null) goes alone. Each round is written as its plans
 * one after another would be, so the whole is too. The outcomes, in the plans' order.
 */
export async function inRounds<P, O>(plans: readonly P[], keysOf: (plan: P) => readonly string[] | null, write: (round: P[]) => Promise<O[]>): Promise<O[]> {
  const outcomes: O[] = [];
  let round: P[] = [];
  let keys = new Set<string>();
  const flush = async () => {
    if (round.length > 0) outcomes.push(...(await write(round)));
    round = [];
    keys = new Set();
  };
  for (const p of plans) {
    const own = keysOf(p);
    if (!own || own.some((k) => keys.has(k))) await flush();
    round.push(p);
    if (!own) await flush();
    else for (const k of own) keys.add(k);
  }
  await flush();
  return outcomes;
}
