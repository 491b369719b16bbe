// Waiting on an actor's snapshot where its context changes without an event: the realm actor's pipeline (a batch's
// writes starting and ending, and the batch taken then: realm.machine.ts startBatch) is plain data, so XState's
// waitFor, which looks at emitted snapshots only, would not see it change.
import type { AnyActorRef, SnapshotFrom } from 'xstate';

/** Polls the actor's snapshot until `ready` holds of it; the time limit only bounds a hang. */
export async function untilSnapshot<A extends AnyActorRef>(actor: A, ready: (snapshot: SnapshotFrom<A>) => boolean, timeoutMs = 30_000): Promise<SnapshotFrom<A>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const snapshot = actor.getSnapshot() as SnapshotFrom<A>;
    if (ready(snapshot)) return snapshot;
    if (Date.now() > end) throw new Error(`the actor's snapshot did not get there within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 1));
  }
}
