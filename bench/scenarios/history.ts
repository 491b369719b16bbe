// history: GET /messages with a topic, a sender and a search narrow over a history of M messages. The
// realm, users and channels are made through the API; the messages and their user_messages rows are seeded
// in bulk straight into the server's database (INSERT … SELECT generate_series), which is safe while the
// server runs: message history is read from the database, not from the realm's working set.
import { forEachBounded } from '../lib/bounded.js';
import { request, type Creds } from '../lib/client.js';
import { closeDatabase, openDatabase, type BenchDb } from '../lib/database.js';
import { PerSecond, summarize, type Summary } from '../lib/stats.js';
import { seedUsers } from './seed.js';
import { num, type Scenario, type ScenarioContext } from './types.js';

/** Words of the seeded contents: each message carries one of WORDS (`w0` … `w999`), the search narrow's terms. */
const WORDS = 1000;
const CHUNK = 20_000;

interface Seeded {
  channels: { id: number; name: string }[];
  userIds: number[];
  people: Creds[];
}

async function prepare(ctx: ScenarioContext, subscribers: number, channelCount: number): Promise<Seeded> {
  const base = ctx.target.url;
  const people = await seedUsers(ctx, subscribers, 'hist');
  const userIds = people.map((p) => p.userId);
  const run = Date.now().toString(36);
  const channels: { id: number; name: string }[] = [];
  for (let c = 0; c < channelCount; c++) {
    const name = `history-${run}-${c}`;
    const r = await request(base, 'POST', '/channels/create', { auth: ctx.owner, form: { name, subscribers: JSON.stringify(userIds) } });
    if (r.status !== 200) throw new Error(`channel: ${JSON.stringify(r.body)}`);
    const id = await request(base, 'GET', '/get_stream_id', { auth: ctx.owner, query: { stream: name } });
    if (id.status !== 200) throw new Error(`get_stream_id: ${JSON.stringify(id.body)}`);
    channels.push({ id: id.body.stream_id, name });
  }
  return { channels, userIds, people };
}

/**
 * Seeds `total` channel messages in chunks: message i goes to channel i mod C, topic `topic (i div C) mod T`,
 * sender i mod K, content "bench history message i wN"; every subscriber gets a read user_messages row.
 */
async function seed(db: BenchDb, s: Seeded, total: number, topics: number, progress: (line: string) => void): Promise<number> {
  const realmId = await db.one('SELECT realm_id FROM users WHERE id = $1', [s.userIds[0]], (r) => r.realm_id as number);
  const channelIds = s.channels.map((c) => c.id);
  const C = channelIds.length;
  const K = s.userIds.length;
  for (let lo = 1; lo <= total; lo += CHUNK) {
    const hi = Math.min(total, lo + CHUNK - 1);
    await db.none(
      `WITH ins AS (
         INSERT INTO messages (realm_id, sender_id, recipient_kind, stream_id, topic, content, rendered_content,
                               date_sent, recipient_id, sending_client)
         SELECT $1, ($2::int[])[1 + i % $5], 'stream', ($3::int[])[1 + i % $4], 'topic ' || ((i / $4) % $6),
                'bench history message ' || i || ' w' || (i % $7),
                '<p>bench history message ' || i || ' w' || (i % $7) || '</p>',
                now() - make_interval(secs => $9 - i), 2 * ($3::int[])[1 + i % $4], 'bench'
         FROM generate_series($8::int, $10::int) AS i
         ORDER BY i
         RETURNING id)
       INSERT INTO user_messages (user_id, message_id, flags)
       SELECT u, ins.id, 1 FROM ins CROSS JOIN unnest($2::int[]) AS u`,
      [realmId, s.userIds, channelIds, C, K, topics, WORDS, lo, total, hi],
    );
    progress(`history: seeded ${hi}/${total} messages`);
  }
  // As an old history would be: vacuumed (hint bits and visibility map set) and analyzed. Without it the first
  // read of each page after the bulk insert dirties it, which a live server's history does not pay.
  progress('history: VACUUM ANALYZE');
  await db.none('VACUUM ANALYZE messages');
  await db.none('VACUUM ANALYZE user_messages');
  return total * K;
}

interface Narrow {
  name: string;
  narrow(i: number): unknown[];
}

export const history: Scenario = async (ctx) => {
  const total = num(ctx.options, 'messages', ctx.quick ? 10_000 : 1_000_000);
  const subscribers = num(ctx.options, 'subscribers', ctx.quick ? 3 : 5);
  const channelCount = num(ctx.options, 'channels', 4);
  const topics = num(ctx.options, 'topics', 100);
  const requests = num(ctx.options, 'requests', ctx.quick ? 30 : 500);
  const concurrency = num(ctx.options, 'concurrency', 1);
  const numBefore = num(ctx.options, 'num-before', 50);
  const base = ctx.target.url;

  const s = await prepare(ctx, subscribers, channelCount);
  const db = openDatabase(ctx.target);
  let seedSeconds: number;
  let userMessages: number;
  try {
    const t0 = performance.now();
    userMessages = await seed(db, s, total, topics, ctx.progress);
    seedSeconds = (performance.now() - t0) / 1000;
  } finally {
    await closeDatabase(db);
  }

  const C = s.channels.length;
  const narrows: Narrow[] = [
    {
      name: 'topic',
      narrow: (i) => [
        { operator: 'channel', operand: s.channels[i % C]!.name },
        { operator: 'topic', operand: `topic ${(i * 7) % topics}` },
      ],
    },
    { name: 'sender', narrow: (i) => [{ operator: 'sender', operand: s.userIds[i % s.userIds.length]! }] },
    { name: 'search', narrow: (i) => [{ operator: 'search', operand: `w${(i * 37) % WORDS}` }] },
  ];
  const viewer = s.people[0]!;
  const perNarrow: Record<string, Summary> = {};
  const allSamples: number[] = [];
  let errors = 0;
  let done = 0;
  const started = performance.now();
  const perSecond = new PerSecond(started);
  for (const n of narrows) {
    const samples: number[] = [];
    await forEachBounded(requests, concurrency, async (i) => {
      const r = await request(base, 'GET', '/messages', {
        auth: viewer,
        query: { anchor: 'newest', num_before: String(numBefore), num_after: '0', narrow: JSON.stringify(n.narrow(i)) },
      });
      // Every narrow matches at least num_before messages of a seeded history this size.
      const expected = Math.min(numBefore, Math.floor(total / (n.name === 'topic' ? C * topics : n.name === 'sender' ? s.userIds.length : WORDS)));
      if (r.status !== 200 || r.body.messages.length < expected) {
        errors++;
        return;
      }
      samples.push(r.ms);
      perSecond.add(r.ms);
      if (++done % 50 === 0) ctx.progress(`history: ${done}/${requests * narrows.length} fetches`);
    });
    perNarrow[n.name] = summarize(samples);
    allSamples.push(...samples);
  }
  const seconds = (performance.now() - started) / 1000;
  const topic = perNarrow.topic!;
  const fmt = (x: Summary) => `${x.p50.toFixed(1)} / ${x.p95.toFixed(1)} / ${x.p99.toFixed(1)} / ${x.max.toFixed(1)}`;
  const timeline = perSecond.result();
  return {
    throughput: allSamples.length / seconds,
    latencyMs: topic,
    errors,
    samples: allSamples,
    timeline: timeline.counts,
    p99Timeline: timeline.p99,
    figures: {
      messages: total,
      user_messages: userMessages,
      channels: C,
      topics_per_channel: topics,
      subscribers: s.userIds.length,
      seed_seconds: +seedSeconds.toFixed(1),
      seed_messages_per_second: Math.round(total / seedSeconds),
      requests_per_narrow: requests,
      concurrency,
      num_before: numBefore,
      'topic p50/p95/p99/max ms': fmt(perNarrow.topic!),
      'sender p50/p95/p99/max ms': fmt(perNarrow.sender!),
      'search p50/p95/p99/max ms': fmt(perNarrow.search!),
    },
    breakdown: perNarrow,
    target: {
      description:
        total >= 1_000_000
          ? `topic narrow over ${total.toLocaleString('en')} messages p99 under 20 ms`
          : `topic narrow p99 under 20 ms over 1,000,000 messages (this run had ${total.toLocaleString('en')}; run with --messages 1000000)`,
      met: topic.p99 < 20 && total >= 1_000_000,
    },
  };
};
