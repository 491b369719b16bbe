// How each kind of actor looks to operators: one register() call per kind. The actors themselves come from the actor
// system (src/actors/system.ts); a new kind adds its line here if it has a mailbox, a realm elsewhere than
// `context.realmId` or a persisted form of its own. Event queues are no XState actors: the registry shows them
// (ActorDirectory.addPlain, in operators/index.ts), kind `eventQueue`, their dump as the persisted form.
import type { ActorDirectory } from './actor-directory.js';

export function registerActorKinds(d: ActorDirectory): void {
  d.register({ kind: 'root', realm: () => undefined });
  // Spawned by the root actor; the mailbox is the commands waiting for the next write batch.
  d.register({ kind: 'realm', mailbox: (s) => s.context.pending.length });
  d.register({ kind: 'scheduled-delivery', mailbox: (s) => s.context.due.size });
  d.register({ kind: 'userSession' });
  d.register({ kind: 'retention' });
  // Batch loops: one per POST /streams/{id}/delete_topic while it runs; one per retention sweep (the retention
  // actor's child).
  d.register({ kind: 'topicDeletion' });
  d.register({ kind: 'retentionSweep' });
}
