/**
 * KV commits per ordinary visitor under attack, counted from the store: the real app in this
 * process over in-memory KV wrapped by bench/counting_kv.ts (every successful commit is
 * attributed to the visitors whose keys it writes), driven through the served handler with a fake
 * clock. The join check is on (every join solves a proof of work, so the spent-solution record is
 * in play); ordinary visitors join from their own addresses, one address attacks with joins and
 * heartbeat floods, every ordinary visitor floods heartbeats too, then all are admitted and enter.
 */
import { PowHasher } from "../../lib/challenge/pow_hash.ts";
import { writeJoinGuards } from "../../lib/guard/settings.ts";
import { makeApp } from "../../testing/app.ts";
import { countingKv, WriteCounter } from "../counting_kv.ts";
import { decodeTicket } from "../tickets.ts";
import { ATTACKER_IP } from "./attack.ts";

/** Sizes of the write count. */
export interface WritesOptions {
  visitors: number;
  /** Attacker join attempts per ordinary join. */
  attackJoinsEach: number;
  /** Heartbeats each visitor (and the attacker, per ticket) sends while waiting. */
  heartbeatsEach: number;
}

/** Commits per ordinary visitor, by what they did. */
export interface WritesReport {
  options: WritesOptions;
  /** Ordinary visitors that joined, were admitted and entered. */
  completed: number;
  /** Per completed visitor: commits other than check-in renewals (join, admission, entry). */
  max: number;
  mean: number;
  byLabel: { join: number; admit: number; enter: number; other: number };
  /** Check-in renewals per completed visitor (the heartbeat floods). */
  renewalsMean: number;
  heartbeatsSent: number;
  /** Of those, answered 200 (a refused heartbeat would test nothing). */
  heartbeatsAnswered: number;
  attackPlaced: number;
  /** Commits that wrote no visitor's key while the joins ran (counters, sums). */
  sharedJoinCommits: number;
}

/** Counts KV commits per ordinary visitor while one address attacks. */
export async function countWrites(o: WritesOptions): Promise<WritesReport> {
  const q = "default";
  const counter = new WriteCounter();
  const raw = await Deno.openKv(":memory:");
  const t = await makeApp({
    ADMIT_PER_SECOND: 100_000,
    CAPACITY: 10_000_000,
    MAX_WAITING_VISITORS: 2000,
    CLIENT_IP_HEADER: "x-forwarded-for",
    TRUSTED_PROXIES: "127.0.0.1",
    JOINS_PER_CLIENT_PER_MINUTE: 60,
  }, { kv: countingKv(raw, counter) });
  // Straight to the store (not counted): the check on, at a low difficulty.
  await writeJoinGuards(raw, q, { challenge: "on", difficulty: 1000 });
  t.engine.ctx.invalidate(q);
  const post = (path: string, ip: string, ticket?: string, extra: object = {}) =>
    t.app.request(path, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-forwarded-for": ip,
        ...(ticket ? { cookie: `tg_ticket=${ticket}` } : {}),
      },
      body: JSON.stringify({ queue: q, ...extra }),
    });
  /** Joins with the check solved; the ticket, or null when refused. */
  const join = async (ip: string): Promise<string | null> => {
    let res = await post("/join", ip);
    for (let i = 0; i < 2 && res.status === 403; i++) {
      const ch = (await res.json()).error?.details?.challenge;
      if (!ch) return null;
      const nonce = String(new PowHasher(ch.seed).search(ch.threshold, 0, 1e12));
      res = await post("/join", ip, undefined, { proof: { challenge: ch.challenge, nonce } });
    }
    const ticket = res.headers.get("set-cookie")?.match(/tg_ticket=([^;]+)/)?.[1];
    await res.body?.cancel();
    return res.ok && ticket ? decodeURIComponent(ticket) : null;
  };
  try {
    // Paused while they join, so every ordinary visitor waits (none is admitted at its join).
    await t.engine.setPaused(q, true);
    counter.phase = "join";
    const ordinary: string[] = [], attack: string[] = [];
    for (let i = 0; i < o.visitors; i++) {
      const ticket = await join(`10.1.${i >> 8}.${i & 255}`);
      if (ticket) ordinary.push(ticket);
      for (let a = 0; a < o.attackJoinsEach; a++) {
        const got = await join(ATTACKER_IP);
        if (got) attack.push(got);
      }
      t.clock.advance(10);
    }
    const sharedJoinCommits = counter.sharedCommits;
    // Waiting: heartbeat floods from everyone (renewals are labelled check-ins).
    counter.phase = "status";
    let heartbeatsSent = 0, heartbeatsAnswered = 0;
    const senders = [
      ...ordinary.map((ticket, i) => [ticket, `10.1.${i >> 8}.${i & 255}`]),
      ...attack.map((ticket) => [ticket, ATTACKER_IP]),
    ];
    // Rounds 2 s apart (server time), so due renewals happen among the repeats.
    for (let h = 0; h < o.heartbeatsEach; h++) {
      for (const [ticket, ip] of senders) {
        const res = await post("/heartbeat", ip, ticket, { visitorId: decodeTicket(ticket).sub });
        if (res.ok) heartbeatsAnswered++;
        await res.body?.cancel();
        heartbeatsSent++;
      }
      t.clock.advance(2000);
    }
    counter.phase = "setup";
    await t.engine.setPaused(q, false);
    counter.phase = "tick";
    for (let i = 0; i < 10; i++) {
      t.clock.advance(1000);
      await t.engine.tick(q);
    }
    counter.phase = "status";

    const entered: string[] = [];
    for (const ticket of ordinary) {
      const res = await t.app.request(`/status?queue=${q}`, {
        headers: { cookie: `tg_ticket=${ticket}` },
      });
      const view = await res.json();
      if (view.status === "admitted") entered.push(decodeTicket(ticket).sub);
    }
    const byLabel = { join: 0, admit: 0, enter: 0, other: 0 };
    let max = 0, sum = 0, renewals = 0;
    for (const id of entered) {
      const c = counter.visitors.get(id)!.commits;
      const n = c.join + c.admit + c.enter + c.remove + c.other;
      byLabel.join += c.join;
      byLabel.admit += c.admit;
      byLabel.enter += c.enter;
      byLabel.other += c.remove + c.other;
      renewals += c.checkin;
      max = Math.max(max, n);
      sum += n;
    }
    const n = Math.max(1, entered.length);
    return {
      options: o,
      completed: entered.length,
      max,
      mean: sum / n,
      byLabel,
      renewalsMean: renewals / n,
      heartbeatsSent,
      heartbeatsAnswered,
      attackPlaced: attack.length,
      sharedJoinCommits,
    };
  } finally {
    t.close();
  }
}
