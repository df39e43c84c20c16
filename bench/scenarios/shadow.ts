/**
 * The shadow line against a fixed-address bot (issue 35, part 3), same run, without and with it:
 * the real app in this process over in-memory KV, a simulated clock, the bot check on at a low
 * difficulty. Ordinary visitors join from their own addresses with the check solved; one address
 * runs bot workers that answer every challenge with a wrong solution and, like any script, react
 * to what they get: a refusal is retried at once, a place is followed at its check-ins (it looks
 * real). Measured per phase: the bot's join attempts a second after its first failed check, the
 * rows it holds in the real line, and whether every ordinary visitor was placed.
 */
import { PowHasher } from "../../lib/challenge/pow_hash.ts";
import { writeJoinGuards } from "../../lib/guard/settings.ts";
import { isShadowId } from "../../lib/guard/shadow.ts";
import { keys } from "../../lib/store/keys.ts";
import { makeApp } from "../../testing/app.ts";
import { ATTACKER_IP } from "./attack.ts";

/** Sizes of the shadow-line part. */
export interface ShadowOptions {
  /** Ordinary visitors, one a second of simulated time. */
  visitors: number;
  /** The bot's workers (each one request at a time, one every 100 ms of simulated time). */
  botWorkers: number;
}

/** One phase: the shadow line off or on. */
export interface ShadowPhase {
  shadowLine: boolean;
  ordinaryPlaced: number;
  /** The bot's join requests a second, from its first failed check to the end. */
  botJoinsPerSec: number;
  /** Places the bot got that are real rows in the store (never shadow ones). */
  botRealRows: number;
  /** Places the bot got in the shadow line. */
  botShadowPlaces: number;
  /** Real rows in the store over all (the bot's share is `botRealRows` of these). */
  realRows: number;
  /** The line's waiting count as the metrics give it (shadow places must not be in it). */
  waiting: number;
}

/** Both phases, same sizes. */
export interface ShadowReport {
  options: ShadowOptions;
  off: ShadowPhase;
  on: ShadowPhase;
}

const STEP_MS = 100;

/** One phase on a fresh app. */
async function phase(o: ShadowOptions, shadowLine: boolean): Promise<ShadowPhase> {
  const q = "default";
  const t = await makeApp({
    ADMIT_PER_SECOND: 0.1,
    CAPACITY: 10_000_000,
    CLIENT_IP_HEADER: "x-forwarded-for",
    TRUSTED_PROXIES: "127.0.0.1",
  });
  try {
    await writeJoinGuards(t.kv, q, { challenge: "on", difficulty: 500, shadowLine });
    t.engine.ctx.invalidate(q);
    const post = (ip: string, extra: object = {}) =>
      t.app.request("/join", {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": ip },
        body: JSON.stringify({ queue: q, ...extra }),
      });
    /** A join with the challenge answered: right for ordinary visitors, wrong for the bot. */
    const join = async (ip: string, right: boolean) => {
      const first = await post(ip);
      if (first.status !== 403) return first;
      const ch = (await first.json()).error?.details?.challenge;
      const h = new PowHasher(ch.seed);
      let nonce = right ? h.search(ch.threshold, 0, 1e12) : 0;
      while (!right && h.solves(String(nonce), ch.threshold)) nonce++;
      return await post(ip, { proof: { challenge: ch.challenge, nonce: String(nonce) } });
    };
    let ordinaryPlaced = 0, firstFail = -1;
    const botJoinsAt: number[] = [];
    const botIds = new Set<string>();
    /** When each bot worker may act again (a worker with a place waits for its check-in). */
    const botNext = new Array(o.botWorkers).fill(0);
    /** A worker's ticket once it holds a place (it then checks in instead of joining). */
    const botTicket: (string | null)[] = new Array(o.botWorkers).fill(null);
    const steps = (o.visitors * 1000) / STEP_MS;
    for (let s = 0; s < steps; s++) {
      const now = t.clock.now();
      if (s % (1000 / STEP_MS) === 0) {
        const r = await join(`10.0.${(s / 10) >> 8}.${(s / 10) & 255}`, true);
        if (r.status === 202 || r.status === 200) ordinaryPlaced++;
        await r.body?.cancel();
        await t.engine.tick(q);
      }
      for (let w = 0; w < o.botWorkers; w++) {
        if (botNext[w] > now) continue;
        const ticket = botTicket[w];
        if (ticket) {
          const st = await t.app.request(`/status?queue=${q}`, {
            headers: { cookie: `tg_ticket=${ticket}`, "x-forwarded-for": ATTACKER_IP },
          });
          botNext[w] = (await st.json()).nextCheckAt ?? now + 5000;
          continue;
        }
        botJoinsAt.push(now);
        const r = await join(ATTACKER_IP, false);
        const body = await r.json().catch(() => ({}));
        if (r.status === 202 || r.status === 200) {
          botIds.add(body.visitorId);
          // It follows its place at its check-ins, as a page would.
          botTicket[w] = r.headers.get("set-cookie")?.match(/tg_ticket=([^;]+)/)?.[1] ?? null;
          botNext[w] = body.nextCheckAt ?? now + 5000;
        } else if (firstFail < 0) firstFail = now;
        if (firstFail < 0 && shadowLine && isShadowId(t.services.signer, body.visitorId ?? "")) {
          firstFail = now;
        }
      }
      t.clock.advance(STEP_MS);
    }
    const end = t.clock.now();
    let realRows = 0, botRealRows = 0;
    for await (const e of t.kv.list<{ id: string }>({ prefix: keys.visitorPrefix(q) })) {
      realRows++;
      if (botIds.has(e.value.id)) botRealRows++;
    }
    const shadow = [...botIds].filter((id) => isShadowId(t.services.signer, id)).length;
    t.engine.ctx.invalidate(q);
    return {
      shadowLine,
      ordinaryPlaced,
      botJoinsPerSec: firstFail < 0
        ? 0
        : (botJoinsAt.filter((x) => x >= firstFail).length * 1000) / Math.max(1, end - firstFail),
      botRealRows,
      botShadowPlaces: shadow,
      realRows,
      waiting: (await t.engine.metrics(q)).waiting,
    };
  } finally {
    t.close();
  }
}

/** Runs the two phases (shadow line off, then on). */
export async function shadowLineAttack(o: ShadowOptions): Promise<ShadowReport> {
  return { options: o, off: await phase(o, false), on: await phase(o, true) };
}
