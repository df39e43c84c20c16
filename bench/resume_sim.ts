/**
 * Moving places to another device at scale, in-process on a fake clock and in-memory KV: a line
 * joins, `engine.tick` runs every simulated second, every browser checks in at its `nextCheckAt`
 * (like the waiting page), and a share of the visitors move their place to a second browser at a
 * random moment of their wait (a code, then the move). The browser a place moved from keeps
 * checking in until it is told. Measures places lost (never entered), old browsers told (and that
 * none is let in), and KV commits: per visitor that never moved (join, admission, entry) and per
 * move (the code and the move; a due check-in that falls on the move is counted with it).
 *
 * Run: deno run -A bench/resume_sim.ts (RESUME_VISITORS, RESUME_SHARE, SIM_ADMIT_PER_SECOND).
 */
import { AppError } from "../lib/errors.ts";
import { makeCode, redeemCode } from "../lib/resume/resume.ts";
import { readTicketUnverified, type TicketClaims } from "../lib/tokens.ts";
import { makeApp } from "../testing/app.ts";
import { countingKv, WriteCounter } from "./counting_kv.ts";

/** Results of one run. */
export interface ResumeSimResult {
  visitors: number;
  moved: number;
  lost: number;
  oldBrowsersTold: number;
  /** Commits touching a visitor's records, mean over visitors that never moved. */
  commitsPerPlainVisitor: number;
  /** Commits of making a code and of moving with it, mean per move. */
  commitsPerMove: number;
  simulatedSeconds: number;
  elapsedMs: number;
}

/** One run: `visitors` join at once, `share` of them move once, admitted at `rate` a second. */
export async function runResumeSim(o: { visitors: number; share: number; rate: number }) {
  const started = performance.now();
  const counter = new WriteCounter();
  const kv = countingKv(await Deno.openKv(":memory:"), counter);
  const t = await makeApp({ ADMIT_PER_SECOND: o.rate, CAPACITY: 10_000_000 }, { kv });
  const q = "default", s = t.services;
  try {
    await t.engine.setPaused(q, true); // everyone waits; the line opens after the joins
    counter.phase = "join";
    const joined = await Promise.all(
      Array.from({ length: o.visitors }, () => t.engine.join(q, null)),
    );
    counter.phase = "setup";
    await t.engine.setPaused(q, false);
    /** The browsers checking in: the holder of each place, and old ones not told yet. */
    const browsers = joined.map((j) => ({ claims: readTicketUnverified(j.ticket), old: false }));
    const wait = Math.ceil(o.visitors / o.rate);
    const moveAt = new Map<string, number>();
    for (const b of browsers) {
      if (s.random.float() < o.share) {
        moveAt.set(b.claims.sub, t.clock.now() + Math.floor(s.random.float() * wait) * 1000);
      }
    }
    const movers = new Set(moveAt.keys());
    const entered: string[] = [];
    let told = 0, moveCommits = 0, moves = 0, seconds = 0;
    const live = new Set(browsers);
    while (live.size > 0 && seconds < wait * 3 + 60) {
      t.clock.advance(1000);
      seconds++;
      counter.phase = "tick";
      await t.engine.tick(q);
      counter.phase = "status";
      for (const b of [...live]) {
        const at = moveAt.get(b.claims.sub);
        if (!b.old && at !== undefined && t.clock.now() >= at) {
          moveAt.delete(b.claims.sub);
          const before = counter.commits;
          const { code } = await makeCode(s, q, b.claims);
          const out = await redeemCode(s, q, code, "192.0.2.1");
          moveCommits += counter.commits - before;
          moves++;
          b.old = true; // this browser goes on checking in until it is told
          live.add({ claims: readTicketUnverified(out.ticket), old: false });
        }
        if (t.clock.now() < b.claims.nextCheckAt) continue;
        try {
          const out = await t.engine.status(q, b.claims);
          if (out.view.status === "admitted") {
            if (b.old) throw new Error("an old browser was let in");
            entered.push(b.claims.sub);
            live.delete(b);
          } else if (out.ticket) b.claims = readTicketUnverified(out.ticket) as TicketClaims;
          else b.claims = { ...b.claims, nextCheckAt: out.view.nextCheckAt! };
        } catch (e) {
          if (!(e instanceof AppError) || e.code !== "place_moved" || !b.old) throw e;
          told++;
          live.delete(b);
        }
      }
    }
    let plainCommits = 0, plain = 0;
    for (const id of entered) {
      if (movers.has(id) || !counter.visitors.has(id)) continue;
      const w = counter.visitors.get(id)!.commits;
      plainCommits += w.join + w.admit + w.enter + w.remove + w.other;
      plain++;
    }
    return {
      visitors: o.visitors,
      moved: moves,
      lost: o.visitors - new Set(entered).size,
      oldBrowsersTold: told,
      commitsPerPlainVisitor: plainCommits / Math.max(1, plain),
      commitsPerMove: moveCommits / Math.max(1, moves),
      simulatedSeconds: seconds,
      elapsedMs: Math.round(performance.now() - started),
    } satisfies ResumeSimResult;
  } finally {
    t.close();
  }
}

if (import.meta.main) {
  const env = (k: string, d: number) => Number(Deno.env.get(k) ?? d);
  const r = await runResumeSim({
    visitors: env("RESUME_VISITORS", 1000),
    share: env("RESUME_SHARE", 0.05),
    rate: env("SIM_ADMIT_PER_SECOND", 10),
  });
  console.log(JSON.stringify(r, null, 1));
}
