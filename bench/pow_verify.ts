/**
 * What checking a proof-of-work solution costs the server, in HMAC-SHA256 computations of the
 * same run: `ProofOfWork.verify` (parsing, the signature's HMAC, the solution's SHA-256 block,
 * the comparisons; not the spent-solution write) against one `HmacSha256.mac` of an access
 * token's payload, the MAC the service computes most. Rounds alternate the two (the machine is
 * noisy); the median round decides. Target: at most 5. Also prints the solver's hashes per
 * second on this machine (what the default difficulty costs a visitor).
 *
 * Run: `deno run -A bench/pow_verify.ts` (writes its section of bench/RESULTS.md).
 */
import { cryptoRandom, systemClock } from "../lib/clock.ts";
import { ProofOfWork } from "../lib/challenge/pow.ts";
import { PowHasher } from "../lib/challenge/pow_hash.ts";
import { DEFAULT_JOIN_DIFFICULTY } from "../lib/guard/settings.ts";
import { HmacSha256 } from "../lib/hmac.ts";
import { b64url } from "../lib/tokens.ts";

const SECRET = "bench-secret-bench-secret-bench-secret-01";
const ROUNDS = 15;
const N = 20_000;

const pow = new ProofOfWork(SECRET, systemClock, cryptoRandom);
const to = { purpose: "join", scope: "default", client: "2001:db8:1234:5678::/64" };
const ch = pow.issue(to, 1000);
const h = new PowHasher(ch.seed);
const solution = { challenge: ch.challenge, nonce: String(h.search(ch.threshold, 0, 1e9)) };

const hmac = new HmacSha256(new TextEncoder().encode(SECRET));
const payload = b64url(
  new TextEncoder().encode(
    JSON.stringify({ sub: "0MIF3K2Q1abcdefghijklmnopqrstuv", queue: "default", iat: 1, exp: 2 }),
  ),
);

function timeNs(f: () => void): number {
  const t0 = performance.now();
  for (let i = 0; i < N; i++) f();
  return (performance.now() - t0) * 1e6 / N;
}

const hmacNs: number[] = [], verifyNs: number[] = [], ratios: number[] = [];
let sink = 0;
for (let r = 0; r < ROUNDS + 2; r++) {
  const a = timeNs(() => void (sink ^= hmac.mac(payload)[0]));
  const b = timeNs(() => void (sink ^= pow.verify(solution, to).difficulty));
  if (r < 2) continue; // warm-up
  hmacNs.push(a), verifyNs.push(b), ratios.push(b / a);
}
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const ratio = median(ratios);

// The solver's speed: the same loop the browser's worker runs.
const t0 = performance.now();
new PowHasher(ch.seed).search(0, 0, 2_000_000);
const perSecond = Math.round(2_000_000 / ((performance.now() - t0) / 1000));

const lines = [
  "## Proof-of-work verification (bench/pow_verify.ts)",
  "",
  `Run ${new Date().toISOString()}, Deno ${Deno.version.deno}, ${ROUNDS} alternating rounds of ` +
  `${N.toLocaleString("en")} calls (median round). Baseline: one \`HmacSha256.mac\` of an ` +
  `access token's payload (${payload.length} characters).`,
  "",
  "| what | per call | x HMAC |",
  "| --- | --- | --- |",
  `| HMAC-SHA256 (baseline) | ${median(hmacNs).toFixed(0)} ns | 1.00 |`,
  `| \`ProofOfWork.verify\` (parse, HMAC, SHA-256 block, compares) | ${
    median(verifyNs).toFixed(0)
  } ns | ${ratio.toFixed(2)} |`,
  "",
  `Target: verification costs at most 5 HMAC-SHA256 computations: **${
    ratio <= 5 ? "PASS" : "FAIL"
  }** (${ratio.toFixed(2)} x). Solver on one core of this machine: ${
    perSecond.toLocaleString("en")
  } hashes/s, so the default join difficulty (${
    DEFAULT_JOIN_DIFFICULTY.toLocaleString("en")
  } expected tries) takes about ${(DEFAULT_JOIN_DIFFICULTY / perSecond).toFixed(2)} s here ` +
  "on average; a mid-range phone runs the same loop 3 to 5 times slower.",
  "",
];
console.log(lines.join("\n"));
if (sink === 0.5) console.log(sink); // keeps the loops from being optimized away

const file = new URL("RESULTS.md", import.meta.url);
const text = await Deno.readTextFile(file);
const start = text.indexOf(lines[0]);
let next = start < 0 ? -1 : text.indexOf("\n## ", start + lines[0].length);
if (next >= 0) next += 1;
const out = start < 0
  ? text.trimEnd() + "\n\n" + lines.join("\n")
  : text.slice(0, start) + lines.join("\n") + (next >= 0 ? "\n" + text.slice(next) : "");
await Deno.writeTextFile(file, out);
