// Cluster mode: a user's rate limit counts the requests every process answered, not each process's alone.
import test from 'ava';
import { setTimeout as sleep } from 'node:timers/promises';
import { startCluster, type TestCluster } from '../helpers/cluster.js';

let cluster: TestCluster;

test.before(async () => {
  cluster = await startCluster(3, { RATE_LIMIT_USER: '20/600' });
});

test.after.always(async () => {
  await cluster?.stop();
});

test('the rate limit holds across processes', async (t) => {
  const rr = cluster.roundRobin().as(cluster.owner);
  let ok = 0;
  let limited = 0;
  // One process alone would allow 20 of these; three processes without sharing, all 45.
  for (let i = 0; i < 45; i++) {
    const r = await rr.get('/users/me');
    if (r.status === 200) ok++;
    else if (r.status === 429) {
      limited++;
      t.is(r.json.code, 'RATE_LIMIT_HIT');
    }
    // Each process tells the others what it took every 50 ms; give that a chance so the count is exact.
    await sleep(150);
  }
  t.log({ ok, limited });
  t.true(ok < 25, `${ok} requests allowed with a limit of 20`);
  // And the limit is not undercut: a limiter that refused everything (or counted each request on several processes)
  // would pass the bound above.
  t.true(ok >= 20, `only ${ok} requests allowed with a limit of 20`);
  t.is(ok + limited, 45);
});
