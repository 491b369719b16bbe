// How each kind of actor looks to operators: one register() call per kind. The actors themselves come from the actor
// system (src/actors/system.ts); a new kind adds its line here if it has a mailbox, a realm elsewhere than
// `context.realmId` or a persisted form of its own.
import { dumpQueue, restoreQueue } from '../events/queue-dump.js';
import type { ActorDirectory } from './actor-directory.js';

export function registerActorKinds(d: ActorDirectory): void {
  d.register({ kind: 'root', realm: () => undefined });
  // Spawned by the root actor; the mailbox is the commands waiting for the next write batch.
  d.register({ kind: 'realm', mailbox: (s) => s.context.pending.length });
  // Persisted as the dump written at shutdown (src/events/queue-dump.ts).
  d.register({
    kind: 'eventQueue',
    mailbox: (s) => s.context.events.length,
    persisted: (a) => restoreQueue(dumpQueue(a.getSnapshot())),
  });
  d.register({ kind: 'scheduled-delivery', mailbox: (s) => s.context.due.size });
  d.register({ kind: 'userSession' });
  d.register({ kind: 'retention' });
  // Batch loops: one per POST /streams/{id}/delete_topic while it runs; one per retention sweep (the retention
  // actor's child).
  d.register({ kind: 'topicDeletion' });
  d.register({ kind: 'retentionSweep' });
}
