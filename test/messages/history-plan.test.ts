// A page of a channel's history costs the page, not the viewer's whole history: the viewer's row of each message
// is looked up by its key as the scan meets the message. The plain LEFT JOIN it replaced was planned, once the
// tables had statistics, as a read of every row the viewer has (here 3,000 in another channel) and a filter per
// message (bench/README.md, "mixed --ramp — the database's share"). The test holds whatever plan the costs
// favour: nested loops are discouraged, so a join would show as a read of the viewer's rows.
import test from 'ava';
import { HistoryQuery, LARGER_THAN_MAX_MESSAGE_ID } from '../../src/realm/messages/history.js';
import { resolveForViewer } from '../../src/realm/messages/narrow-context.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { getMessages, makeCast, makeChannel, post, realmOf, type Cast } from './helpers.js';

let s: TestServer;
let cast: Cast;

test.before(async () => {
  s = await startTestServer();
  cast = await makeCast(s, 'plan');
});
test.after.always(() => s?.close());

interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}

/** Rows each relation's scans returned in all (rows × loops), from EXPLAIN ANALYZE's plan. */
function rowsRead(node: PlanNode, into = new Map<string, number>()): Map<string, number> {
  const name = node['Relation Name'];
  if (name) into.set(name, (into.get(name) ?? 0) + (node['Actual Rows'] ?? 0) * (node['Actual Loops'] ?? 1));
  for (const child of node.Plans ?? []) rowsRead(child, into);
  return into;
}

test("a channel's latest page reads the page's rows of user_messages, not the viewer's history", async (t) => {
  const { member: viewer, other } = cast;
  const busy = await makeChannel(s, 'plan busy', [viewer.id, other.id]);
  const page = 'plan page';
  await makeChannel(s, page, [viewer.id, other.id]);
  const db = s.server.services.db;
  const realm = await realmOf(s);
  // Read history written straight to the tables: the viewer's long history elsewhere, and the page channel's older one.
  const history = (channelId: number, topic: string, count: number) =>
    db.none(
      `WITH m AS (
         INSERT INTO messages (realm_id, sender_id, recipient_kind, stream_id, topic, content, rendered_content)
         SELECT $1, $2, 'stream', $3, $5, 'old ' || i, '<p>old ' || i || '</p>' FROM generate_series(1, $6) i
         RETURNING id)
       INSERT INTO user_messages (user_id, message_id, flags) SELECT u, m.id, 1 FROM m, unnest(array[$2, $4]::int[]) u`,
      [realm.state.realm.id, other.id, channelId, viewer.id, topic, count],
    );
  await history(busy, 'old', 3000);
  await history(realm.state.channels.channelByName(page)!.id, 'now', 300);
  const sent: number[] = [];
  for (let i = 0; i < 20; i++) sent.push(await post(s, other, page, 'now', `message ${i}`));
  await db.none('ANALYZE messages; ANALYZE user_messages');

  const user = realm.state.userByEmail(viewer.email)!;
  const narrow = await resolveForViewer(realm.state, db, user, [{ operator: 'channel', operand: page }]);
  const { sql, params } = new HistoryQuery(realm.state, user, narrow).rowsQuery({ op: '<=', id: LARGER_THAN_MAX_MESSAGE_ID }, 'DESC', 20);
  // Whatever the planner's costs say: here it is told to avoid nested loops, as bad statistics might make it.
  const explained = await db.tx((tx) => tx.one(`SET LOCAL enable_nestloop = off; EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, params));
  const read = rowsRead((explained['QUERY PLAN'] as { Plan: PlanNode }[])[0]!.Plan);
  t.true((read.get('user_messages') ?? 0) <= 20, `user_messages rows read: ${read.get('user_messages')}`);

  // And the page is right: the 20 latest, with the viewer's flags.
  const got = await getMessages(s, viewer, { anchor: 'newest', num_before: 20, num_after: 0, narrow: JSON.stringify([['channel', page]]) });
  t.deepEqual(
    got.json.messages.map((m: { id: number }) => m.id),
    sent.slice(-20),
  );
  t.true(got.json.messages.every((m: { flags: string[] }) => !m.flags.includes('read')));
});
