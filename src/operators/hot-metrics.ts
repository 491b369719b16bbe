// The metrics fed on every request and every poll answer. prom-client's inc and observe check the label object and
// hash it into a string on every call (1–2.5 µs a request for the request counter and histogram, measured); here the
// caller holds its series (found once, through maps keyed by label values whose hashes V8 keeps) and adds to plain
// numbers. The series are written out in prom-client's format when scraped, through the same Registry, in the text
// prom-client's own counter and histogram would write.
import type { Metric, Registry } from 'prom-client';

type Labels = Record<string, string | number>;

/** A sample as prom-client's Registry takes it; a histogram's series labels are `sharedLabels`, written after `le`. */
interface Sample {
  labels: Labels;
  sharedLabels?: Labels;
  value: number;
  metricName?: string;
}

interface Exported {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  values: Sample[];
}

/** A counter's series. */
export class CounterSeries {
  value = 0;
  constructor(readonly labels: Labels) {}
}

/** A histogram's series: its count per bucket (made cumulative when written out), sum and count. */
export class HistogramSeries {
  private readonly counts: number[];
  private sum = 0;
  private count = 0;
  constructor(
    readonly labels: Labels,
    private readonly bounds: readonly number[],
  ) {
    this.counts = bounds.map(() => 0);
  }

  /** Counted as prom-client counts: in the first bucket whose bound is at least `value`; above them all, in +Inf only. */
  observe(value: number): void {
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]!) {
        this.counts[i]!++;
        break;
      }
    }
    this.sum += value;
    this.count++;
  }

  reset(): void {
    this.counts.fill(0);
    this.sum = 0;
    this.count = 0;
  }

  /** The cumulative buckets, +Inf, the sum and the count. */
  samples(name: string): Sample[] {
    const out: Sample[] = [];
    const bucket = `${name}_bucket`;
    let acc = 0;
    for (let i = 0; i < this.bounds.length; i++) {
      acc += this.counts[i]!;
      out.push({ labels: { le: this.bounds[i]! }, sharedLabels: this.labels, value: acc, metricName: bucket });
    }
    out.push(
      { labels: { le: '+Inf' }, sharedLabels: this.labels, value: this.count, metricName: bucket },
      { labels: {}, sharedLabels: this.labels, value: this.sum, metricName: `${name}_sum` },
      { labels: {}, sharedLabels: this.labels, value: this.count, metricName: `${name}_count` },
    );
    return out;
  }
}

/** A counter or histogram in a prom-client Registry, whose series its owner makes (`series`) and keeps; written out
 *  in the order they were made. The Registry reads a metric through get() (getForPromString() for the text where
 *  there is one) and reset() only. */
abstract class HotMetric<S extends CounterSeries | HistogramSeries> {
  readonly aggregator = 'sum';
  protected readonly all: S[] = [];
  constructor(
    registry: Registry,
    readonly name: string,
    readonly help: string,
    readonly type: 'counter' | 'histogram',
  ) {
    registry.registerMetric(this as unknown as Metric);
  }

  series(labels: Labels): S {
    const s = this.make(labels);
    this.all.push(s);
    return s;
  }

  protected abstract make(labels: Labels): S;
  abstract reset(): void;
  protected abstract samples(): Sample[];

  protected exported(values: Sample[]): Exported {
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  async get(): Promise<Exported> {
    return this.exported(this.samples());
  }
}

export class HotCounter extends HotMetric<CounterSeries> {
  constructor(registry: Registry, name: string, help: string) {
    super(registry, name, help, 'counter');
  }
  protected make(labels: Labels): CounterSeries {
    return new CounterSeries(labels);
  }
  reset(): void {
    for (const s of this.all) s.value = 0;
  }
  protected samples(): Sample[] {
    return this.all.map((s) => ({ labels: s.labels, value: s.value }));
  }
}

export class HotHistogram extends HotMetric<HistogramSeries> {
  constructor(
    registry: Registry,
    name: string,
    help: string,
    private readonly bounds: readonly number[],
  ) {
    super(registry, name, help, 'histogram');
  }
  protected make(labels: Labels): HistogramSeries {
    return new HistogramSeries(labels, this.bounds);
  }
  reset(): void {
    for (const s of this.all) s.reset();
  }
  protected samples(): Sample[] {
    return this.all.flatMap((s) => s.samples(this.name));
  }

  /** The text's samples: each series' labels after `le`, as prom-client's histogram writes them. */
  async getForPromString(): Promise<Exported> {
    return this.exported(this.samples());
  }

  /** Each sample with its series' labels merged in, as prom-client's histogram gives them. */
  override async get(): Promise<Exported> {
    return this.exported(this.samples().map(({ labels, sharedLabels, ...rest }) => ({ ...rest, labels: { ...labels, ...sharedLabels } })));
  }
}

/** HTTP requests: counted by method, route and status, timed by method and route. */
export class RequestMetrics {
  private readonly requests: HotCounter;
  private readonly latency: HotHistogram;
  /** Route → method → the pair's series. */
  private readonly byRoute = new Map<string, Map<string, { latency: HistogramSeries; byStatus: Map<number, CounterSeries> }>>();

  constructor(registry: Registry, bounds: readonly number[]) {
    this.requests = new HotCounter(registry, 'palaver_http_requests_total', 'HTTP requests answered, by route and status.');
    this.latency = new HotHistogram(registry, 'palaver_http_request_duration_seconds', 'Time from request to reply, by route.', bounds);
  }

  observe(method: string, route: string, status: number, seconds: number): void {
    let byMethod = this.byRoute.get(route);
    if (!byMethod) this.byRoute.set(route, (byMethod = new Map()));
    let pair = byMethod.get(method);
    if (!pair) byMethod.set(method, (pair = { latency: this.latency.series({ method, route }), byStatus: new Map() }));
    let count = pair.byStatus.get(status);
    if (!count) pair.byStatus.set(status, (count = this.requests.series({ method, route, status })));
    count.value++;
    pair.latency.observe(seconds);
  }
}
