// The send job (sendLoops in bench/lib/jobs.ts) over real HTTP against a node:http server of the test's own: what each
// sender posts, which answers are counted as errors (every one not 200, the warm-up's too) and which are the samples
// (those answered from the window's start on).
import test from 'ava';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { JOBS } from '../../bench/lib/jobs.js';
import { nowAbs } from '../../bench/lib/workers.js';

test('senders post numbered messages; every answer not 200 is an error, the answers from startAt on are the samples', async (t) => {
  const bodies: string[] = [];
  let failed = 0;
  const answeredOk: number[] = [];
  const s = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString());
      // Every third answer is a failure.
      if (bodies.length % 3 === 0) {
        failed++;
        res.writeHead(503).end('{"result":"error"}');
      } else {
        answeredOk.push(nowAbs());
        res.writeHead(200).end('{"result":"success","id":1}');
      }
    });
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  t.teardown(() => {
    s.closeAllConnections();
    s.close();
  });
  const base = `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  // A warm-up long enough for the first answers on a loaded machine.
  const startAt = nowAbs() + 500;
  const out = await JOBS.sendLoops(
    { base, startAt, endAt: startAt + 300, senders: [0, 1].map((index) => ({ index, item: { creds: { email: `u${index}@b.test`, apiKey: 'k' }, to: 'general' } })) },
    { post: () => undefined, onMessage: () => undefined },
  );
  t.is(out.errors, failed);
  t.true(failed > 0);
  // Answered from startAt on by the server's clock: each sender may have one answer on its way across startAt.
  const late = answeredOk.filter((at) => at >= startAt).length;
  t.true(out.samples.length >= late && out.samples.length <= late + 2, `${out.samples.length} samples, ${late} answered from startAt on`);
  t.true(out.samples.length > 0 && out.samples.length < answeredOk.length, `the warm-up answers are not samples: ${out.samples.length} of ${answeredOk.length}, late ${late}, errors ${out.errors}`);
  t.true(out.seconds.every((x) => x === 0));
  const first = bodies.filter((b) => b.includes('content=load+0-')).slice(0, 3);
  t.deepEqual(first, ['type=stream&to=general&topic=t0&content=load+0-0', 'type=stream&to=general&topic=t0&content=load+0-1', 'type=stream&to=general&topic=t0&content=load+0-2']);
});
