// The actor kinds operators can see: one register() call per kind. A new kind adds its line here (or calls
// `operators.actors.track(actor)` for a one-off actor nobody keeps a map of, as POST …/delete_topic does).
import type { AnyActorRef } from 'xstate';
import { dumpQueue, restoreQueue } from '../events/queue-dump.js';
import type { ActorDirectory } from './actor-directory.js';

export interface ActorOwners {
  root: AnyActorRef;
  queues: { actors(): Iterable<AnyActorRef> };
  scheduled: { actors(): Iterable<AnyActorRef> };
  presence: { actors(): Iterable<AnyActorRef> };
  retention: AnyActorRef;
}

export function registerActorKinds(d: ActorDirectory, o: ActorOwners): void {
  d.register({ kind: 'root', actors: () => [o.root], realm: () => undefined });
  // Spawned by the root actor; the mailbox is the commands waiting for the next write batch.
  d.register({ kind: 'realm', mailbox: (s) => s.context.pending.length });
  // Persisted as the dump written at shutdown (src/events/queue-dump.ts).
  d.register({
    kind: 'eventQueue',
    actors: () => o.queues.actors(),
    mailbox: (s) => s.context.events.length,
    persisted: (a) => restoreQueue(dumpQueue(a.getSnapshot())),
  });
  d.register({ kind: 'scheduled-delivery', actors: () => o.scheduled.actors(), mailbox: (s) => s.context.due.size });
  d.register({ kind: 'userSession', actors: () => o.presence.actors() });
  d.register({ kind: 'retention', actors: () => [o.retention] });
  // One per POST /streams/{id}/delete_topic, tracked by the route while it runs.
  d.register({ kind: 'topicDeletion' });
}
