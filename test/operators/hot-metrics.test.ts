// The request and delivery metrics kept outside prom-client write the text prom-client's own counter and histogram
// write for the same observations: series, order, labels (escaped), bucket edges, +Inf, sums; with default labels too.
import test from 'ava';
import { Counter, Histogram, Registry } from 'prom-client';
import { HotCounter, HotHistogram, RequestMetrics } from '../../src/operators/hot-metrics.js';

const BOUNDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

function pair() {
  const theirs = new Registry();
  const ours = new Registry();
  const requests = new Counter({ name: 'palaver_http_requests_total', help: 'HTTP requests answered, by route and status.', labelNames: ['method', 'route', 'status'], registers: [theirs] });
  const latency = new Histogram({ name: 'palaver_http_request_duration_seconds', help: 'Time from request to reply, by route.', labelNames: ['method', 'route'], buckets: BOUNDS, registers: [theirs] });
  const count = new Counter({ name: 'x_total', help: 'A counter without labels.', registers: [theirs] });
  const times = new Histogram({ name: 'x_seconds', help: 'A histogram without labels.', buckets: BOUNDS, registers: [theirs] });
  const hotRequests = new RequestMetrics(ours, BOUNDS);
  const hotCount = new HotCounter(ours, 'x_total', 'A counter without labels.').series({});
  const hotTimes = new HotHistogram(ours, 'x_seconds', 'A histogram without labels.', BOUNDS).series({});
  return {
    theirs,
    ours,
    request(method: string, route: string, status: number, seconds: number) {
      requests.inc({ method, route, status });
      latency.observe({ method, route }, seconds);
      hotRequests.observe(method, route, status, seconds);
    },
    deliver(n: number, seconds: number) {
      count.inc(n);
      hotCount.value += n;
      times.observe(seconds);
      hotTimes.observe(seconds);
    },
  };
}

const VALUES = [0, 1e-9, 0.0007, 0.001, 0.0010001, 0.003, 0.1 + 0.2, 1, 119.9, 120, 120.5, 5000];
const METHODS = ['GET', 'POST', 'DELETE'];
const ROUTES = ['/api/v1/events', 'unmatched', '/api/v1/messages', 'a "quoted" \\ route\nwith a line'];
const STATUSES = [200, 400, 404, 500];

for (const defaults of [null, { node: 'a' }]) {
  test(`the same text as prom-client's counter and histogram${defaults ? ', with default labels' : ''}`, async (t) => {
    const p = pair();
    if (defaults) {
      p.theirs.setDefaultLabels(defaults);
      p.ours.setDefaultLabels(defaults);
    }
    t.is(await p.ours.metrics(), await p.theirs.metrics(), 'before any observation');
    for (let i = 0; i < 2000; i++) {
      p.request(METHODS[(i * 7) % 3]!, ROUTES[(i * 5) % 4]!, STATUSES[(i * 3) % 4]!, VALUES[i % VALUES.length]!);
      p.deliver(i % 3, VALUES[(i * 11) % VALUES.length]!);
    }
    const text = await p.ours.metrics();
    t.is(text, await p.theirs.metrics());
    t.regex(text, /^palaver_http_request_duration_seconds_bucket\{le="\+Inf",(node="a",)?method="GET",route="\/api\/v1\/events"\} \d+$/m);
    t.regex(text, /^x_total(\{node="a"\})? 1999$/m);
  });
}

test('the same values through getMetricsAsJSON, labels merged', async (t) => {
  const p = pair();
  for (let i = 0; i < 50; i++) p.request(METHODS[i % 3]!, ROUTES[i % 2]!, STATUSES[i % 4]!, VALUES[i % VALUES.length]!);
  const flat = (ms: Awaited<ReturnType<Registry['getMetricsAsJSON']>>) =>
    ms.flatMap((m) => m.values.map((v) => `${m.name} ${(v as { metricName?: string }).metricName ?? ''} ${JSON.stringify(Object.entries(v.labels).sort())} ${v.value}`));
  t.deepEqual(flat(await p.ours.getMetricsAsJSON()), flat(await p.theirs.getMetricsAsJSON()));
});

test('reset zeroes every series', async (t) => {
  const p = pair();
  p.request('GET', '/api/v1/events', 200, 0.002);
  p.deliver(3, 0.002);
  p.ours.resetMetrics();
  const text = await p.ours.metrics();
  t.regex(text, /^palaver_http_requests_total\{method="GET",route="\/api\/v1\/events",status="200"\} 0$/m);
  t.regex(text, /^x_total 0$/m);
  t.regex(text, /^x_seconds_count 0$/m);
});
