/**
 * Attack scenario: a new address for every join, against the proof-of-work check in automatic
 * mode. A real server (main.ts, KV file) with a queue capped at 2,000 waiting rows; ordinary
 * visitors from distinct addresses join evenly over `--seconds`, solve any challenge they get (one
 * solver worker in this process, standing in for their phones) and follow their timeslots; from
 * second 5, `--attackers` workers join at full speed, each join from a new address, solving every
 * challenge, and keep their places alive too (the worst case). This machine runs the server, the
 * visitors, their solver and the attacker's solvers.
 *
 * Measured: the attacker's share of live rows (sampled each second from /metrics), at the peak of
 * the line and the largest after the first 10 s; ordinary visitors placed and refused
 * (`queue_full` and others); challenges seen. (Places are FIFO by arrival number in the engine.)
 *
 * Run: `deno run -A bench/pow_attack.ts [--seconds 60] [--visitors 1000] [--difficulty 50000]
 * [--attackers 1] [--no-results]` (writes its section of bench/RESULTS.md).
 */
import { keys } from "../lib/store/keys.ts";
import { installCleanup, stopAll } from "./procs.ts";
import { Follower } from "./scenarios/follower.ts";
import { HttpPool } from "./scenarios/http.ts";
import { pause, startTarget } from "./scenarios/target.ts";

const args = new Map<string, string>();
for (let i = 0; i < Deno.args.length; i++) {
  const a = Deno.args[i];
  if (a === "--no-results") args.set(a, "1");
  else args.set(a, Deno.args[++i]);
}
const num = (k: string, d: number) => Number(args.get(k) ?? d);
const o = {
  seconds: num("--seconds", 60),
  visitors: num("--visitors", 1000),
  difficulty: num("--difficulty", 50_000),
  attackers: num("--attackers", 1),
  cap: 2000,
  autoJoinsPerMinute: 1200,
  autoWaiting: 1500,
};

installCleanup();
const dir = await Deno.makeTempDir({ prefix: "tollgate-pow-" });
const kvPath = `${dir}/pow.kv`;
// The queue's guards, written before the server opens the file.
const kv = await Deno.openKv(kvPath);
await kv.set(keys.joinGuards("default"), {
  challenge: "auto",
  provider: "builtin",
  difficulty: o.difficulty,
  autoJoinsPerMinute: o.autoJoinsPerMinute,
  autoWaiting: o.autoWaiting,
  requireEnqueueToken: false,
});
kv.close();
const t = await startTarget({ dir, log: console.log }, "server-pow", kvPath, {
  MAX_WAITING_VISITORS: String(o.cap),
  ADMIT_PER_SECOND: "0.1",
  CLIENT_IP_HEADER: "x-client-ip",
});

/** A worker of bench/scenarios/pow_attacker.ts (its role comes with its first message). */
const worker = () =>
  new Worker(new URL("./scenarios/pow_attacker.ts", import.meta.url), { type: "module" });
const solver = worker();
const waitingFor = new Map<number, (nonce: string) => void>();
solver.onmessage = (e) => waitingFor.get(e.data.id)?.(e.data.nonce);
let solveId = 0;
const solve = (challenge: unknown) =>
  new Promise<string>((resolve) => {
    const id = ++solveId;
    waitingFor.set(id, (n) => (waitingFor.delete(id), resolve(n)));
    solver.postMessage({ role: "solve", id, challenge });
  });

const follower = new Follower(new HttpPool(t.url, 32), t.clock);
const attackFollower = new Follower(new HttpPool(t.url, 16), t.clock);
follower.start();
attackFollower.start();

const ordinary = { placed: 0, challenged: 0, refused: new Map<string, number>() };
async function visitor(i: number): Promise<void> {
  const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
  let proof: { challenge: string; nonce: string } | undefined;
  for (let attempt = 0; attempt < 4; attempt++) {
    const res = await fetch(`${t.url}/join`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-client-ip": ip },
      body: JSON.stringify({ queue: "default", ...(proof ? { proof } : {}) }),
    });
    const body = await res.json();
    if (res.ok) {
      const ticket = res.headers.get("set-cookie")!.match(/tg_ticket=([^;]+)/)![1];
      ordinary.placed++;
      if (res.status === 202) follower.add(ticket);
      return;
    }
    const ch = body.error?.details?.challenge;
    if (!ch) {
      const code = body.error?.code ?? String(res.status);
      ordinary.refused.set(code, (ordinary.refused.get(code) ?? 0) + 1);
      return;
    }
    if (attempt === 0) ordinary.challenged++;
    proof = { challenge: ch.challenge, nonce: await solve(ch) };
  }
}

const attack = { joined: 0, solved: 0, refused: new Map<string, number>() };
const attackers: Worker[] = [];
const samples: { sec: number; live: number; attacker: number }[] = [];
const started = Date.now();
const visits: Promise<void>[] = [];
let sent = 0, second = 0, done = 0;
console.log(`pow attack: ${o.visitors} visitors over ${o.seconds} s, ${o.attackers} attacker(s)`);
// Until every ordinary visitor is placed (or refused), and at least 15 s after the last joined.
while (Date.now() - started < (o.seconds + 15) * 1000 || done < o.visitors) {
  const elapsed = (Date.now() - started) / 1000;
  for (; sent < Math.min(o.visitors, Math.floor(elapsed * o.visitors / o.seconds)); sent++) {
    visits.push(visitor(sent).finally(() => done++));
  }
  if (elapsed >= 5 && attackers.length < o.attackers) {
    for (let a = 0; a < o.attackers; a++) {
      const w = worker();
      w.onmessage = (e) => {
        if (e.data.kind === "joined") {
          attack.joined++;
          if (e.data.solved) attack.solved++;
          if (e.data.ticket) attackFollower.add(e.data.ticket);
        } else {
          attack.refused.set(e.data.code, (attack.refused.get(e.data.code) ?? 0) + 1);
        }
      };
      w.postMessage({ role: "attack", url: t.url, first: a * 1_000_000 });
      attackers.push(w);
    }
  }
  if (elapsed >= second + 1) {
    second++;
    const m = await fetch(`${t.url}/metrics?queue=default`, {
      headers: { authorization: `Bearer ${t.secret}` },
    }).then((r) => r.json()).catch(() => null);
    if (m) {
      const live = m.waiting + m.holding + m.entered;
      samples.push({ sec: second, live, attacker: Math.min(attack.joined, live) });
    }
  }
  await pause(20);
}
for (const w of attackers) w.terminate();
await Promise.all(visits);
solver.terminate();
await follower.stop();
await attackFollower.stop();
const final = await fetch(`${t.url}/metrics?queue=default`, {
  headers: { authorization: `Bearer ${t.secret}` },
}).then((r) => r.json());
await stopAll();
await Deno.remove(dir, { recursive: true }).catch(() => {});

const peak = samples.reduce((a, b) => (b.live > a.live ? b : a), samples[0]);
const worst = samples.filter((s) => s.sec > 10 && s.live > 0)
  .reduce((a, b) => (b.attacker / b.live > a.attacker / a.live ? b : a), peak);
const share = (s: { live: number; attacker: number }) =>
  `${(100 * s.attacker / Math.max(1, s.live)).toFixed(1)}% (${s.attacker} of ${s.live})`;
const refused = (m: Map<string, number>) =>
  m.size ? [...m].map(([k, v]) => `${k} ${v}`).join(", ") : "none";
const queueFull = ordinary.refused.get("queue_full") ?? 0;
const lines = [
  "## Attack: a new address per join, proof of work automatic (bench/pow_attack.ts)",
  "",
  `Run ${
    new Date().toISOString()
  }: queue capped at ${o.cap} waiting rows, ${o.visitors} ordinary ` +
  `visitors from ${o.visitors} addresses over ${o.seconds} s (until all are placed, at least ` +
  "15 s more), " +
  `${o.attackers} attacker worker(s) from second 5, each join from a new address. Check: ` +
  `automatic (on at ${o.autoJoinsPerMinute} joins a minute or ${o.autoWaiting} waiting), base ` +
  `difficulty ${o.difficulty.toLocaleString("en")}. This machine (2 cores) runs the server, the ` +
  "visitors' solver, and the attacker's solvers.",
  "",
  "| what | measured | target | result |",
  "| --- | --- | --- | --- |",
  `| attacker's live rows at the line's peak | ${share(peak)} | <= 10% | ${
    peak.attacker / Math.max(1, peak.live) <= 0.1 ? "PASS" : "FAIL"
  } |`,
  `| attacker's largest share after 10 s | ${share(worst)} | (info) | info |`,
  `| ordinary visitors placed | ${ordinary.placed} of ${o.visitors} (refused: ${
    refused(ordinary.refused)
  }) | all, 0 queue_full | ${
    ordinary.placed === o.visitors && queueFull === 0 ? "PASS" : "FAIL"
  } |`,
  `| ordinary visitors that had to solve | ${ordinary.challenged} | (info) | info |`,
  `| attacker joins (solved) | ${attack.joined} (${attack.solved}); refused: ${
    refused(attack.refused)
  } | (info) | info |`,
  `| metrics at the end | waiting ${final.waiting}, challenges issued ${final.joinGuards.challengesIssued}, solved ${final.joinGuards.challengesSolved}, failed ${final.joinGuards.challengesFailed} | (info) | info |`,
  "",
];
console.log(lines.join("\n"));
if (!args.has("--no-results")) {
  const file = new URL("RESULTS.md", import.meta.url);
  const text = await Deno.readTextFile(file);
  const start = text.indexOf(lines[0]);
  let next = start < 0 ? -1 : text.indexOf("\n## ", start + lines[0].length);
  if (next >= 0) next += 1;
  await Deno.writeTextFile(
    file,
    start < 0
      ? text.trimEnd() + "\n\n" + lines.join("\n")
      : text.slice(0, start) + lines.join("\n") + (next >= 0 ? "\n" + text.slice(next) : ""),
  );
}
Deno.exit(0);
