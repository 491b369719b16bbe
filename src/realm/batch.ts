// Runs a batch of realm commands: checks against memory, then every write in one transaction (group commit).
import { ApiError, errors } from '../http/errors.js';
import type { Db } from '../persistence/db.js';
import { isConnectionError } from '../persistence/errors.js';
import type { CommandRegistry, PendingCommand } from './commands.js';
import type { RealmState } from './state.js';

/** The tag of a write batch's transaction: operators' metrics read the batch size from it. */
export interface RealmBatchTag {
  name: 'realm-batch';
  writes: number;
}

export function isRealmBatchTag(tag: unknown): tag is RealmBatchTag {
  return typeof tag === 'object' && tag !== null && (tag as RealmBatchTag).name === 'realm-batch';
}

export type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

function failure(err: unknown): Outcome {
  if (err instanceof ApiError) return { ok: false, error: err };
  if (isConnectionError(err)) return { ok: false, error: errors.unavailable('Database unavailable') };
  return { ok: false, error: err };
}

export async function runBatch(
  db: Db,
  state: RealmState,
  registry: CommandRegistry,
  batch: PendingCommand[],
): Promise<Outcome[]> {
  const outcomes: Outcome[] = new Array(batch.length);
  const planned: { index: number; plan: unknown }[] = [];
  batch.forEach((cmd, index) => {
    const def = registry[cmd.kind];
    if (!def) {
      outcomes[index] = failure(new Error(`unknown realm command ${cmd.kind}`));
      return;
    }
    try {
      const plan = def.check(state, cmd.input);
      if (def.write) planned.push({ index, plan });
      else outcomes[index] = { ok: true, value: plan };
    } catch (err) {
      outcomes[index] = failure(err);
    }
  });
  if (planned.length === 0) return outcomes;
  try {
    await db.tx({ tag: { name: 'realm-batch', writes: planned.length } satisfies RealmBatchTag }, async (t) => {
      if (planned.length === 1) {
        const { index, plan } = planned[0]!;
        outcomes[index] = { ok: true, value: await registry[batch[index]!.kind]!.write!(t, plan, state) };
        return;
      }
      // Several commands: each in a savepoint, so one failing write does not fail the others.
      for (const { index, plan } of planned) {
        try {
          const value = await t.tx((sp) => registry[batch[index]!.kind]!.write!(sp, plan, state));
          outcomes[index] = { ok: true, value };
        } catch (err) {
          if (isConnectionError(err)) throw err;
          outcomes[index] = failure(err);
        }
      }
    });
  } catch (err) {
    for (const { index } of planned) outcomes[index] = failure(err);
  }
  return outcomes;
}
