/**
 * What a sliding session costs an admitted request, against a plain `/verify` of the same run:
 * the served handler in this process over a local KV file (as a single instance runs), three
 * kinds of round alternating (the machine is noisy; the median round decides):
 *
 * - **fixed**: `/verify` of visitors in a fixed queue (signature, expiry, the release list: no
 *   store access at all). The baseline.
 * - **sliding, steady**: `/verify` in a sliding queue between renewals (what this instance knows
 *   of the visitor answers; no store access).
 * - **sliding, renewal due**: every request is its visitor's first of a new renewal interval (one
 *   read and one checked write each).
 *
 * A visitor who makes a request every second pays one renewal per 60 s interval (the default
 * idle time of 300 s): the blend line. Run: `deno run -A bench/session_renewal.ts` (writes its
 * section of bench/RESULTS.md).
 */
import { FakeClock } from "../lib/clock.ts";
import { writeSessionSettings } from "../lib/session/settings.ts";
import { makeApp } from "../testing/app.ts";

const N = 1000;
const ROUNDS = 12;
const WARMUP = 2;
const INTERVAL_MS = 60_000;

const dir = await Deno.makeTempDir({ prefix: "tollgate-session-bench-" });
const kv = await Deno.openKv(`${dir}/kv.sqlite`);
const clock = new FakeClock(Date.now());
const t = await makeApp(
  { QUEUES: ["fixed", "sliding"], ADMIT_PER_SECOND: 100_000, CAPACITY: 1_000_000 },
  { kv, clock },
);
await writeSessionSettings(kv, "sliding", {
  sessionMode: "sliding",
  sessionIdleSeconds: 300,
  sessionMaxSeconds: null,
});

async function admit(q: string): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < N; i++) {
    const r = await t.engine.join(q, null);
    if (!r.view.accessToken) throw new Error(`not admitted at once in ${q}`);
    out.push(r.view.accessToken);
  }
  return out;
}
const fixed = await admit("fixed");
const sliding = await admit("sliding");

/** Mean µs per `/verify` over `tokens`, sequentially; keeps any re-issued token. */
async function round(tokens: string[]): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < tokens.length; i++) {
    const res = await t.fetch(
      new Request("http://localhost/verify", { headers: { cookie: `tg_access=${tokens[i]}` } }),
    );
    if (res.status !== 204) throw new Error(`verify answered ${res.status}`);
    const fresh = /^tg_access=([^;]*)/.exec(res.headers.getSetCookie()[0] ?? "");
    if (fresh) tokens[i] = decodeURIComponent(fresh[1]);
  }
  return (performance.now() - t0) * 1000 / tokens.length;
}

// The first request after entry writes once (the slot's time shrinks to the sliding window).
clock.advance(1000);
await round(sliding);
const base: number[] = [], steady: number[] = [], due: number[] = [];
for (let r = 0; r < ROUNDS + WARMUP; r++) {
  // Which of the two runs first alternates: the second of a pair measured slower either way.
  let a: number, b: number;
  if (r % 2) [b, a] = [await round(sliding), await round(fixed)];
  else [a, b] = [await round(fixed), await round(sliding)];
  clock.advance(INTERVAL_MS + 1000); // every sliding visitor is due again
  const c = await round(sliding);
  if (r < WARMUP) continue;
  base.push(a), steady.push(b), due.push(c);
}
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const [mA, mB, mC] = [median(base), median(steady), median(due)];
const perInterval = INTERVAL_MS / 1000;
const blend = ((perInterval - 1) * mB + mC) / perInterval;
// Ratios per round (each against the baseline measured beside it), then their median.
const ratio = (xs: number[]) => median(xs.map((x, i) => x / base[i]));
const [rB, rC] = [ratio(steady), ratio(due)];
const rBlend = median(
  steady.map((b, i) => ((perInterval - 1) * b + due[i]) / perInterval / base[i]),
);
const renewed = (await t.kv.get<Deno.KvU64>(["sessionStats", "sliding", "renewed"])).value;
const row = (what: string, us: number, r: number) =>
  `| ${what} | ${us.toFixed(1)} µs | ${r.toFixed(2)} |`;

const lines = [
  "## Sliding session renewal (bench/session_renewal.ts)",
  "",
  `Run ${
    new Date().toISOString()
  }, Deno ${Deno.version.deno}: the served handler in-process over ` +
  `a local KV file, ${N.toLocaleString("en")} admitted visitors per queue, ${ROUNDS} ` +
  `alternating rounds (median round; ratios: median of each round's against its own baseline). ${
    Number(renewed?.value ?? 0)
  } renewal writes in all.`,
  "",
  "| `/verify` of an admitted visitor | per request | x fixed |",
  "| --- | --- | --- |",
  row("fixed queue (baseline: signature, expiry, release list)", mA, 1),
  row("sliding, between renewals (no store access)", mB, rB),
  row("sliding, renewal due (one read, one checked write)", mC, rC),
  row(`sliding, a request a second (one renewal per ${perInterval} s)`, blend, rBlend),
  "",
];
console.log(lines.join("\n"));

const file = new URL("RESULTS.md", import.meta.url);
const text = await Deno.readTextFile(file);
const start = text.indexOf(lines[0]);
let next = start < 0 ? -1 : text.indexOf("\n## ", start + lines[0].length);
if (next >= 0) next += 1;
const out = start < 0
  ? text.trimEnd() + "\n\n" + lines.join("\n")
  : text.slice(0, start) + lines.join("\n") + (next >= 0 ? "\n" + text.slice(next) : "");
await Deno.writeTextFile(file, out);
t.close();
await Deno.remove(dir, { recursive: true });
