/** The cost chart: requests and monthly cost of both modes as inline SVG bars (no JS). */
import type { CostEstimate } from "../lib/cost.ts";

/** Numbers as the page shows them. */
export const num = new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 });
/** Dollars as the page shows them. */
export const usd = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" });

/** Horizontal bars for requests and monthly cost, scaled per group; readable without JS. */
export function CostChart({ estimate }: { estimate: CostEstimate }) {
  const groups = [
    {
      title: "Requests per month",
      a: estimate.adaptive.requests.total,
      f: estimate.fixed.requests.total,
      fmt: (n: number) => num.format(n),
    },
    {
      title: "Monthly cost on Deno Deploy (USD)",
      a: estimate.adaptive.monthlyCost.totalUsd,
      f: estimate.fixed.monthlyCost.totalUsd,
      fmt: (n: number) => usd.format(n),
    },
  ];
  const label = "Adaptive timeslots versus fixed polling. " +
    groups.map((g) => `${g.title}: adaptive ${g.fmt(g.a)}, fixed ${g.fmt(g.f)}`).join(". ") + ".";
  const x0 = 64, width = 196, bar = 20;
  return (
    <svg
      role="img"
      aria-label={label}
      viewBox="0 0 360 190"
      class="chart"
      width="100%"
      preserveAspectRatio="xMinYMin meet"
      xmlns="http://www.w3.org/2000/svg"
    >
      <title>{label}</title>
      {groups.map((g, gi) => {
        const max = Math.max(g.a, g.f, 1e-9);
        const y = 16 + gi * 90;
        return (
          <g key={g.title}>
            <text class="title" x="0" y={y}>{g.title}</text>
            {[["adaptive", g.a], ["fixed", g.f]].map(([m, v], i) => {
              const w = Math.max(2, (Number(v) / max) * width);
              const by = y + 8 + i * (bar + 6);
              return (
                <g key={String(m)}>
                  <text x="0" y={by + 15}>{m}</text>
                  <rect class={`bar-${m}`} x={x0} y={by} width={w.toFixed(1)} height={bar} />
                  <text x={(x0 + w + 5).toFixed(1)} y={by + 15}>{g.fmt(Number(v))}</text>
                </g>
              );
            })}
          </g>
        );
      })}
    </svg>
  );
}
