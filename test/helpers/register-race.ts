// register while rows of its database-read sections are added: drafts, saved snippets and scheduled messages are
// created one after another (through `writer`) while the user registers again and again (through `registrars`, in
// turn). Each row must be in a registration's snapshot or come as an `add` event on its queue, never both, never
// neither, never twice (src/events/snapshot-adds.ts).
import type { ExecutionContext } from 'ava';
import type { Client, Credentials } from './http.js';

const KINDS = {
  drafts: { section: 'drafts', key: 'id', added: (e: any) => e.drafts },
  saved_snippets: { section: 'saved_snippets', key: 'id', added: (e: any) => [e.saved_snippet] },
  scheduled_messages: { section: 'scheduled_messages', key: 'scheduled_message_id', added: (e: any) => e.scheduled_messages },
} as const;
type Kind = keyof typeof KINDS;
const kinds = Object.keys(KINDS) as Kind[];

async function create(c: Client, auth: Credentials, userId: number, kind: Kind, i: number): Promise<number> {
  const r =
    kind === 'drafts'
      ? await c.post('/drafts', { auth, form: { drafts: JSON.stringify([{ type: '', to: [], topic: '', content: `draft ${i}` }]) } })
      : kind === 'saved_snippets'
        ? await c.post('/saved_snippets', { auth, form: { title: `snippet ${i}`, content: `snippet ${i}` } })
        : await c.post('/scheduled_messages', {
            auth,
            form: { type: 'direct', to: JSON.stringify([userId]), content: `later ${i}`, scheduled_delivery_timestamp: String(Math.floor(Date.now() / 1000) + 86_400) },
          });
  if (r.status !== 200) throw new Error(`creating ${kind}: ${r.text}`);
  return kind === 'drafts' ? r.json.ids[0] : kind === 'saved_snippets' ? r.json.saved_snippet_id : r.json.scheduled_message_id;
}

export async function registerDuringAdds(
  t: ExecutionContext,
  o: { writer: Client; registrars: Client[]; auth: Credentials; userId: number; registrations: number },
): Promise<void> {
  const created: Record<Kind, number[]> = { drafts: [], saved_snippets: [], scheduled_messages: [] };
  let writing = true;
  const writer = (async () => {
    for (let i = 0; writing; i++) for (const kind of kinds) created[kind].push(await create(o.writer, o.auth, o.userId, kind, i));
  })();
  const registrations: { client: Client; queueId: string; shown: Record<Kind, number[]> }[] = [];
  try {
    while (created.scheduled_messages.length < 2) await new Promise((r) => setTimeout(r, 10));
    for (let i = 0; i < o.registrations; i++) {
      const client = o.registrars[i % o.registrars.length]!;
      const r = await client.post('/register', { auth: o.auth, form: { event_types: JSON.stringify(kinds) } });
      t.is(r.status, 200, r.text);
      const shown = {} as Record<Kind, number[]>;
      for (const kind of kinds) shown[kind] = (r.json[KINDS[kind].section] as Record<string, number>[]).map((x) => x[KINDS[kind].key]!);
      registrations.push({ client, queueId: r.json.queue_id, shown });
    }
  } finally {
    writing = false;
    await writer;
  }
  // One more of each after every register was answered: it reaches every queue as an event.
  const last = {} as Record<Kind, number>;
  for (const kind of kinds) created[kind].push((last[kind] = await create(o.writer, o.auth, o.userId, kind, -1)));
  let doubled = 0;
  for (const reg of registrations) {
    const added: Record<Kind, number[]> = { drafts: [], saved_snippets: [], scheduled_messages: [] };
    for (let lastId = -1; !kinds.every((k) => added[k].includes(last[k])); ) {
      const r = await reg.client.get('/events', { auth: o.auth, query: { queue_id: reg.queueId, last_event_id: String(lastId) } });
      t.is(r.status, 200, r.text);
      for (const e of r.json.events) {
        lastId = Math.max(lastId, e.id);
        if (e.op === 'add' && e.type in KINDS) for (const row of KINDS[e.type as Kind].added(e)) added[e.type as Kind].push(row[KINDS[e.type as Kind].key]);
      }
    }
    for (const kind of kinds) {
      const shown = new Set(reg.shown[kind]);
      const both = added[kind].filter((id) => shown.has(id));
      doubled += both.length;
      t.deepEqual(both, [], `${kind}: none both in the snapshot and as an add event`);
      t.deepEqual(added[kind], [...new Set(added[kind])], `${kind}: no add event twice`);
      const union = new Set([...shown, ...added[kind]]);
      t.deepEqual(created[kind].filter((id) => !union.has(id)), [], `${kind}: none missing`);
    }
    await reg.client.delete('/events', { auth: o.auth, form: { queue_id: reg.queueId } });
  }
  t.log(`${registrations.length} registrations; created ${kinds.map((k) => `${created[k].length} ${k}`).join(', ')}; doubled ${doubled}`);
}
