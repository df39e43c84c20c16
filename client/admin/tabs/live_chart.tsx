/// <reference lib="dom" />
/**
 * The Live tab's inflow/outflow chart: the traffic buckets of `GET /api/admin/traffic` grouped
 * into at most 96 bins and drawn as two areas in inline SVG, with time and count axis labels, a
 * visible legend, and a text summary that is also the chart's accessible description.
 */
import { useId } from "../ui.tsx";

/** One bucket of `GET /api/admin/traffic`. */
export interface TrafficBucket {
  at: number;
  inflow: number;
  outflow: number;
}

/** `GET /api/admin/traffic` (JSON). */
export interface Traffic {
  queue: string;
  bucketSeconds: number;
  buckets: TrafficBucket[];
}

const W = 640, H = 220, L = 44, R = 12, T = 12, B = 28;
const MAX_BINS = 96;

const hhmm = (ms: number) =>
  new Date(ms).toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });

/** Groups the buckets into at most MAX_BINS bins (sums). */
function bin(t: Traffic): { at: number; inflow: number; outflow: number; seconds: number }[] {
  const per = Math.max(1, Math.ceil(t.buckets.length / MAX_BINS));
  const out = [];
  for (let i = 0; i < t.buckets.length; i += per) {
    const group = t.buckets.slice(i, i + per);
    out.push({
      at: group[0].at,
      inflow: group.reduce((n, b) => n + b.inflow, 0),
      outflow: group.reduce((n, b) => n + b.outflow, 0),
      seconds: per * t.bucketSeconds,
    });
  }
  return out;
}

const compact = (n: number) =>
  new Intl.NumberFormat(undefined, { notation: "compact", maximumFractionDigits: 1 }).format(n);

const minutes = (s: number) => s >= 3600 ? `${s / 3600} h` : `${Math.round(s / 60)} min`;

/** The one-paragraph summary a screen reader hears (and everyone reads under the chart). */
export function trafficSummary(t: Traffic): string {
  const bins = bin(t);
  if (!bins.length) return "No traffic data yet.";
  const joined = bins.reduce((n, b) => n + b.inflow, 0);
  const admitted = bins.reduce((n, b) => n + b.outflow, 0);
  const hours = Math.round(t.buckets.length * t.bucketSeconds / 3600);
  let text = `Last ${hours} h: ${joined} joined, ${admitted} admitted.`;
  const peak = bins.reduce((a, b) => (b.inflow > a.inflow ? b : a), bins[0]);
  if (peak.inflow > 0) {
    text += ` Busiest ${minutes(peak.seconds)} for joins started at ${
      hhmm(peak.at)
    } with ${peak.inflow} joins.`;
  }
  const last = bins[bins.length - 1];
  text += ` Latest ${minutes(last.seconds)}: ${last.inflow} in, ${last.outflow} out.`;
  return text;
}

/** The inflow/outflow chart. */
export function TrafficChart({ traffic }: { traffic: Traffic }) {
  const id = useId("chart");
  const bins = bin(traffic);
  const max = Math.max(1, ...bins.map((b) => Math.max(b.inflow, b.outflow)));
  const t0 = bins[0]?.at ?? 0;
  const last = traffic.buckets[traffic.buckets.length - 1];
  const span = Math.max(1, (last ? last.at + traffic.bucketSeconds * 1000 : 1) - t0);
  const x = (at: number) => L + ((at - t0) / span) * (W - L - R);
  const y = (v: number) => T + (1 - v / max) * (H - T - B);
  const line = (k: "inflow" | "outflow") =>
    bins.map((b, i) => `${i ? "L" : "M"}${x(b.at).toFixed(1)},${y(b[k]).toFixed(1)}`).join(" ");
  const area = (k: "inflow" | "outflow") =>
    bins.length
      ? `${line(k)} L${x(bins[bins.length - 1].at).toFixed(1)},${y(0)} L${L},${y(0)} Z`
      : "";
  const ticks = bins.length ? [0, 0.25, 0.5, 0.75, 1] : [];
  const per = bins[0]?.seconds ?? traffic.bucketSeconds;
  const summary = trafficSummary(traffic);
  return (
    <figure class="live-chart">
      <svg
        viewBox={`0 0 ${W} ${H}`}
        role="img"
        aria-labelledby={`${id}-t`}
        aria-describedby={`${id}-d`}
      >
        <title id={`${id}-t`}>Inflow and outflow of queue {traffic.queue}</title>
        <desc id={`${id}-d`}>{summary}</desc>
        <g class="axis" aria-hidden="true">
          <line x1={L} y1={y(0)} x2={W - R} y2={y(0)} />
          <line x1={L} y1={T} x2={L} y2={y(0)} />
          <line class="grid-line" x1={L} y1={y(max)} x2={W - R} y2={y(max)} />
          <text x={L - 6} y={y(0)} text-anchor="end" dominant-baseline="middle">0</text>
          <text x={L - 6} y={y(max)} text-anchor="end" dominant-baseline="middle">
            {compact(max)}
          </text>
          {ticks.map((f, k) => (
            <text
              key={k}
              class={k % 2 ? "minor" : undefined}
              x={L + f * (W - L - R)}
              y={H - 8}
              text-anchor={k === 0 ? "start" : k === ticks.length - 1 ? "end" : "middle"}
            >
              {hhmm(t0 + f * span)}
            </text>
          ))}
        </g>
        <path class="in-area" d={area("inflow")} />
        <path class="out-area" d={area("outflow")} />
        <path class="in-line" d={line("inflow")} />
        <path class="out-line" d={line("outflow")} />
      </svg>
      <figcaption>
        <span class="live-legend" aria-hidden="true">
          <span class="key in">Inflow (joins)</span>
          <span class="key out">Outflow (admissions)</span>
          <span class="muted">per {minutes(per)}</span>
        </span>
        <span class="live-summary">{summary}</span>
      </figcaption>
    </figure>
  );
}
