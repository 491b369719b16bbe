// The root actor: keeps the realm directory, spawns realm actors on demand, reloads realms the admin CLI
// changed, and stops every realm actor on shutdown.
import { assign, fromCallback, setup, stopChild, type ActorRefFrom } from 'xstate';
import type { EventHub } from '../bus/hub.js';
import type { Db } from '../persistence/db.js';
import type { CommandRegistry, RealmBatchObserver } from '../realm/commands.js';
import type { RealmEntry } from '../model/realm.js';
import { realmMachine, type BatchReplicator, type RealmInput } from './realm.machine.js';

export type RealmRef = ActorRefFrom<typeof realmMachine>;

export interface RootInput {
  db: Db;
  hub: EventHub;
  commands: CommandRegistry;
  /** Handed to every realm actor (operators' metrics). */
  realmObserver?: RealmBatchObserver;
  directory: RealmEntry[];
  /** ROOT_DOMAIN: realms' hosts, the domain of their users' fake addresses. */
  rootDomain: string;
  /** Handed to every realm actor (RealmInput.pipelineDepth). */
  realmPipelineDepth?: number;
  /** Handed to every realm actor (RealmInput.pipelineWriters). */
  realmPipelineWriters?: number;
  changePollMs: number;
  lastChangeId: number;
  /** Cluster mode (src/cluster/): the database a realm actor writes through (its transactions fenced), where its
   *  committed batches go for the other processes, and what sees each working set it loads. */
  cluster?: { dbFor(realmId: number): Db; replicate: BatchReplicator; loaded: NonNullable<RealmInput['loaded']> };
}

export interface RootContext extends RootInput {
  realms: Map<number, RealmRef>;
}

export type RootEvent =
  | { type: 'REALM.ENSURE'; realmId: number }
  | { type: 'REALM.RESTART'; realmId: number }
  | { type: 'EXTERNAL_CHANGES'; realmIds: number[]; directory: RealmEntry[] }
  | { type: 'SHUTDOWN' };

/** Polls the change log the admin CLI writes and reports changed realms with a fresh directory. */
const changeWatcher = fromCallback<RootEvent, { db: Db; intervalMs: number; since: number }>(({ sendBack, input }) => {
  let since = input.since;
  let busy = false;
  const timer = setInterval(async () => {
    if (busy) return;
    busy = true;
    try {
      const changes = await input.db.changes.since(since);
      if (changes.length > 0) {
        since = changes[changes.length - 1]!.id;
        const directory = await input.db.realms.directory();
        const realmIds = [...new Set(changes.map((c) => c.realmId).filter((id): id is number => id !== null))];
        sendBack({ type: 'EXTERNAL_CHANGES', realmIds, directory });
      }
    } catch {
      // The database may be briefly unreachable; the next tick tries again.
    } finally {
      busy = false;
    }
  }, input.intervalMs);
  timer.unref();
  return () => clearInterval(timer);
});

export const rootMachine = setup({
  types: { context: {} as RootContext, input: {} as RootInput, events: {} as RootEvent },
  actors: { realm: realmMachine, changeWatcher },
}).createMachine({
  id: 'root',
  context: ({ input }) => ({ ...input, realms: new Map() }),
  initial: 'running',
  states: {
    running: {
      invoke: {
        src: 'changeWatcher',
        input: ({ context }) => ({ db: context.db, intervalMs: context.changePollMs, since: context.lastChangeId }),
      },
      on: {
        'REALM.ENSURE': {
          guard: ({ context, event }) => !context.realms.has(event.realmId),
          actions: assign(({ context, event, spawn }) => {
            const ref = spawn('realm', {
              id: `realm:${event.realmId}`,
              input: {
                realmId: event.realmId,
                db: context.cluster?.dbFor(event.realmId) ?? context.db,
                hub: context.hub,
                commands: context.commands,
                observer: context.realmObserver,
                rootDomain: context.rootDomain,
                pipelineDepth: context.realmPipelineDepth,
                pipelineWriters: context.realmPipelineWriters,
                replicate: context.cluster?.replicate,
                loaded: context.cluster?.loaded,
              },
            });
            const realms = new Map(context.realms);
            realms.set(event.realmId, ref);
            return { realms };
          }),
        },
        'REALM.RESTART': {
          guard: ({ context, event }) => context.realms.has(event.realmId),
          actions: [
            stopChild(({ context, event }) => context.realms.get(event.realmId)!),
            assign(({ context, event }) => {
              const realms = new Map(context.realms);
              realms.delete(event.realmId);
              return { realms };
            }),
          ],
        },
        EXTERNAL_CHANGES: {
          actions: [
            assign({ directory: ({ event }) => event.directory }),
            ({ context, event }) => {
              for (const id of event.realmIds) {
                context.realms.get(id)?.send({
                  type: 'COMMAND',
                  command: { kind: 'realm.reload', input: undefined, resolve: () => {}, reject: () => {} },
                });
              }
            },
          ],
        },
        SHUTDOWN: 'stopping',
      },
    },
    stopping: {
      entry: ({ context }) => {
        for (const ref of context.realms.values()) ref.send({ type: 'STOP' });
      },
    },
  },
});
