/**
 * The few Prometheus primitives the service needs, without a client library: labelled counters
 * and histograms kept in memory, and a writer for the text exposition formats (Prometheus 0.0.4
 * and OpenMetrics 1.0.0). Label values come from short fixed lists (routes, status codes, error
 * codes, queue names), and each family holds at most `MAX_SERIES` series, so a flood of odd
 * input can never grow memory or the exposition without bound.
 */

/** Most series one family keeps; later label combinations are dropped (and counted). */
export const MAX_SERIES = 2000;

/** Label values of one series, in the family's label order. */
export type LabelValues = readonly string[];

const SEP = "\u0000";

/** Series of one family, keyed by their joined label values; new keys stop at `MAX_SERIES`. */
class SeriesMap<T> {
  readonly #map = new Map<string, { labels: LabelValues; value: T }>();
  /** Observations refused because the family was full. */
  dropped = 0;

  constructor(private readonly make: () => T) {}

  /** The series of `labels`, created when there is room; undefined when the family is full. */
  get(labels: LabelValues): T | undefined {
    const key = labels.length === 1 ? labels[0] : labels.join(SEP);
    const hit = this.#map.get(key);
    if (hit) return hit.value;
    if (this.#map.size >= MAX_SERIES) {
      this.dropped++;
      return undefined;
    }
    const value = this.make();
    this.#map.set(key, { labels: [...labels], value });
    return value;
  }

  /** Every series with its labels. */
  entries(): Iterable<{ labels: LabelValues; value: T }> {
    return this.#map.values();
  }
}

/** A monotonic counter with labels. */
export class Counter {
  readonly series = new SeriesMap(() => ({ n: 0 }));
  constructor(readonly name: string, readonly help: string, readonly labelNames: string[]) {}

  /** Adds `n` (default 1) to the series of `labels`. */
  inc(labels: LabelValues, n = 1): void {
    const s = this.series.get(labels);
    if (s) s.n += n;
  }

  /** The series of `labels` itself, for a hot path to keep and add to (undefined when full). */
  cell(labels: LabelValues): { n: number } | undefined {
    return this.series.get(labels);
  }

  /** The current value of one series (0 when it never counted). */
  value(labels: LabelValues): number {
    for (const e of this.series.entries()) {
      if (e.labels.every((v, i) => v === labels[i])) return e.value.n;
    }
    return 0;
  }
}

/** One histogram series: counts per bucket (not cumulative), sum and count. */
export interface HistogramSeries {
  counts: number[];
  sum: number;
  count: number;
}

/** A histogram with fixed upper bounds (seconds, or a plain number like a batch size). */
export class Histogram {
  readonly series: SeriesMap<HistogramSeries>;
  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: string[],
    readonly bounds: number[],
  ) {
    this.series = new SeriesMap(() => ({ counts: bounds.map(() => 0), sum: 0, count: 0 }));
  }

  /** Records one observation in the series of `labels`. */
  observe(labels: LabelValues, value: number): void {
    const s = this.series.get(labels);
    if (s) this.record(s, value);
  }

  /** The series of `labels` itself, for a hot path to keep (undefined when full). */
  cell(labels: LabelValues): HistogramSeries | undefined {
    return this.series.get(labels);
  }

  /** Records one observation in a series `cell` returned. */
  record(s: HistogramSeries, value: number): void {
    // Counts per bucket (not cumulative) keep an observation to one increment; the writer sums.
    const b = this.bounds;
    let i = 0;
    while (i < b.length && value > b[i]) i++;
    if (i < b.length) s.counts[i]++;
    s.sum += value;
    s.count++;
  }
}

/** The two text formats a scraper can ask for. */
export type TextFormat = "prometheus" | "openmetrics";

/** The Content-Type of each text format. */
export const CONTENT_TYPES: Record<TextFormat, string> = {
  prometheus: "text/plain; version=0.0.4; charset=utf-8",
  openmetrics: "application/openmetrics-text; version=1.0.0; charset=utf-8",
};

/** Labels of one sample, by name. */
export type Labels = Record<string, string>;

const escapeLabel = (v: string) =>
  v.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n");

/** A number as both formats write it (booleans as 0 and 1). */
function num(v: number | boolean): string {
  if (typeof v === "boolean") return v ? "1" : "0";
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "+Inf";
  if (v === -Infinity) return "-Inf";
  return String(v);
}

function labelText(labels: Labels): string {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
  return parts.length ? `{${parts.join(",")}}` : "";
}

/** Zips a family's label names with one series' values. */
function named(names: string[], values: LabelValues): Labels {
  const out: Labels = {};
  names.forEach((n, i) => (out[n] = values[i]));
  return out;
}

/**
 * Writes metric families in the Prometheus text format or OpenMetrics. The two differ where a
 * scraper notices: a counter's family is named without `_total` in OpenMetrics (its samples keep
 * it), and an OpenMetrics exposition ends with `# EOF`.
 */
export class ExpositionWriter {
  readonly #lines: string[] = [];
  constructor(readonly format: TextFormat) {}

  #head(name: string, type: string, help: string): void {
    this.#lines.push(`# HELP ${name} ${help.replaceAll("\\", "\\\\").replaceAll("\n", "\\n")}`);
    this.#lines.push(`# TYPE ${name} ${type}`);
  }

  /** A gauge family; families without samples are left out. */
  gauge(name: string, help: string, samples: [Labels, number | boolean][]): void {
    if (samples.length === 0) return;
    this.#head(name, "gauge", help);
    for (const [l, v] of samples) this.#lines.push(`${name}${labelText(l)} ${num(v)}`);
  }

  /**
   * A gauge per state of an enumeration: 1 for the current state of each row, 0 for the others
   * (the admission mode of each queue, the origin health).
   */
  stateGauge(
    name: string,
    help: string,
    label: string,
    states: readonly string[],
    rows: [Labels, string][],
  ): void {
    this.gauge(
      name,
      help,
      rows.flatMap(([l, current]) =>
        states.map((state): [Labels, boolean] => [{ ...l, [label]: state }, current === state])
      ),
    );
  }

  /** A counter family; `name` ends in `_total`. */
  counter(name: string, help: string, samples: [Labels, number][]): void {
    if (samples.length === 0) return;
    const family = this.format === "openmetrics" ? name.replace(/_total$/, "") : name;
    this.#head(family, "counter", help);
    for (const [l, v] of samples) this.#lines.push(`${name}${labelText(l)} ${num(v)}`);
  }

  /** A counter kept in memory, every series of it (filtered by `keep`). */
  counterOf(c: Counter, keep: (labels: Labels) => boolean = () => true): void {
    const samples: [Labels, number][] = [];
    for (const e of c.series.entries()) {
      const l = named(c.labelNames, e.labels);
      if (keep(l)) samples.push([l, e.value.n]);
    }
    this.counter(c.name, c.help, samples);
  }

  /** A histogram kept in memory: cumulative buckets up to `+Inf`, then `_sum` and `_count`. */
  histogramOf(h: Histogram): void {
    const all = [...h.series.entries()];
    if (all.length === 0) return;
    this.#head(h.name, "histogram", h.help);
    for (const e of all) {
      const l = named(h.labelNames, e.labels);
      let acc = 0;
      h.bounds.forEach((b, i) => {
        acc += e.value.counts[i];
        this.#lines.push(`${h.name}_bucket${labelText({ ...l, le: num(b) })} ${acc}`);
      });
      this.#lines.push(`${h.name}_bucket${labelText({ ...l, le: "+Inf" })} ${e.value.count}`);
      this.#lines.push(`${h.name}_sum${labelText(l)} ${num(e.value.sum)}`);
      this.#lines.push(`${h.name}_count${labelText(l)} ${e.value.count}`);
    }
  }

  /** A comment line (Prometheus format only: OpenMetrics allows no free comments). */
  comment(text: string): void {
    if (this.format === "prometheus") this.#lines.push(`# ${text.replaceAll("\n", " ")}`);
  }

  /** The exposition text. */
  text(): string {
    const end = this.format === "openmetrics" ? "# EOF\n" : "";
    return this.#lines.join("\n") + "\n" + end;
  }
}
