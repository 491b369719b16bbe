// stream_weekly_traffic for a set of channels: one count query for those old enough to estimate.
import type { Repos } from '../../persistence/db.js';
import { TRAFFIC_WINDOW_DAYS, trafficEstimable, weeklyTraffic, type TrafficLookup } from './format.js';
import type { Channel } from '../../model/channels.js';

export async function trafficFor(db: Repos, channels: Iterable<Channel>): Promise<TrafficLookup> {
  const now = Date.now() / 1000;
  const ids = [...channels].filter((c) => trafficEstimable(c, now)).map((c) => c.id);
  const counts = await db.channels.recentMessageCounts(ids, TRAFFIC_WINDOW_DAYS);
  return (ch) => weeklyTraffic(ch, counts.get(ch.id) ?? 0, now);
}
