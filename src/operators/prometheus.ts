// A small Prometheus registry (counters, gauges, histograms with labels) and the text exposition format 0.0.4.
// prom-client is not installed here; this covers what the server exports and nothing more.

export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

type Labels = Record<string, string | number>;
/** Samples a gauge computes when scraped: one value, or one per label set. */
export type GaugeSamples = number | { labels: Labels; value: number }[];

interface Metric {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'gauge' | 'histogram';
  lines(): Promise<string[]> | string[];
}

function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

function labelText(labels: Labels): string {
  const keys = Object.keys(labels);
  if (keys.length === 0) return '';
  return '{' + keys.map((k) => `${k}="${escapeLabel(String(labels[k]))}"`).join(',') + '}';
}

/** Label values joined in the declared order: the key of one series. */
function seriesKey(names: readonly string[], labels: Labels): string {
  return names.map((n) => String(labels[n] ?? '')).join('\u0000');
}

function labelsOf(names: readonly string[], key: string): Labels {
  const values = key === '' && names.length === 0 ? [] : key.split('\u0000');
  return Object.fromEntries(names.map((n, i) => [n, values[i] ?? '']));
}

export class Counter implements Metric {
  readonly type = 'counter';
  private readonly values = new Map<string, number>();
  constructor(readonly name: string, readonly help: string, private readonly labelNames: readonly string[] = []) {}

  inc(labels: Labels = {}, by = 1): void {
    const key = seriesKey(this.labelNames, labels);
    this.values.set(key, (this.values.get(key) ?? 0) + by);
  }

  get(labels: Labels = {}): number {
    return this.values.get(seriesKey(this.labelNames, labels)) ?? 0;
  }

  lines(): string[] {
    if (this.values.size === 0 && this.labelNames.length === 0) return [`${this.name} 0`];
    return [...this.values].map(([k, v]) => `${this.name}${labelText(labelsOf(this.labelNames, k))} ${formatValue(v)}`);
  }
}

/** A gauge whose samples are computed at scrape time (nothing is kept between scrapes). */
export class Gauge implements Metric {
  readonly type = 'gauge';
  constructor(readonly name: string, readonly help: string, private readonly collect: () => GaugeSamples | Promise<GaugeSamples>) {}

  async lines(): Promise<string[]> {
    const samples = await this.collect();
    if (typeof samples === 'number') return [`${this.name} ${formatValue(samples)}`];
    return samples.map((s) => `${this.name}${labelText(s.labels)} ${formatValue(s.value)}`);
  }
}

/** A counter kept elsewhere (e.g. a field incremented on the hot path), read at scrape time. */
export class CounterFunc implements Metric {
  readonly type = 'counter';
  constructor(readonly name: string, readonly help: string, private readonly read: () => number) {}
  lines(): string[] {
    return [`${this.name} ${formatValue(this.read())}`];
  }
}

interface HistogramSeries {
  counts: number[];
  sum: number;
  count: number;
}

export class Histogram implements Metric {
  readonly type = 'histogram';
  private readonly series = new Map<string, HistogramSeries>();
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly buckets: readonly number[],
    private readonly labelNames: readonly string[] = [],
  ) {}

  observe(labels: Labels, value: number): void {
    const key = seriesKey(this.labelNames, labels);
    let s = this.series.get(key);
    if (!s) this.series.set(key, (s = { counts: new Array(this.buckets.length).fill(0), sum: 0, count: 0 }));
    // Counts per bucket (not cumulative); lines() accumulates them.
    const i = this.buckets.findIndex((b) => value <= b);
    if (i >= 0) s.counts[i]!++;
    s.sum += value;
    s.count++;
  }

  /** Observations so far for one label set. */
  count(labels: Labels = {}): number {
    return this.series.get(seriesKey(this.labelNames, labels))?.count ?? 0;
  }

  lines(): string[] {
    const out: string[] = [];
    for (const [key, s] of this.series) {
      const labels = labelsOf(this.labelNames, key);
      let cumulative = 0;
      this.buckets.forEach((b, i) => {
        cumulative += s.counts[i]!;
        out.push(`${this.name}_bucket${labelText({ ...labels, le: formatValue(b) })} ${cumulative}`);
      });
      out.push(`${this.name}_bucket${labelText({ ...labels, le: '+Inf' })} ${s.count}`);
      out.push(`${this.name}_sum${labelText(labels)} ${formatValue(s.sum)}`);
      out.push(`${this.name}_count${labelText(labels)} ${s.count}`);
    }
    return out;
  }
}

export class Registry {
  private readonly metrics = new Map<string, Metric>();

  add<M extends Metric>(metric: M): M {
    if (this.metrics.has(metric.name)) throw new Error(`metric ${metric.name} registered twice`);
    this.metrics.set(metric.name, metric);
    return metric;
  }

  /** The exposition text; a collector that fails leaves its metric out rather than failing the scrape. */
  async render(): Promise<string> {
    const parts = await Promise.all(
      [...this.metrics.values()].map(async (m) => {
        let lines: string[];
        try {
          lines = await m.lines();
        } catch {
          return '';
        }
        return `# HELP ${m.name} ${m.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}\n# TYPE ${m.name} ${m.type}\n` +
          lines.map((l) => l + '\n').join('');
      }),
    );
    return parts.join('');
  }
}
