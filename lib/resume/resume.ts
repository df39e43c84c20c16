/**
 * Moving a place to another device. The browser that holds a place asks for a code (`makeCode`),
 * shown as text, a link and a QR code; whoever redeems it (`redeemCode`) becomes the holder: one
 * commit deletes the code and raises the holder generation, and the new browser gets a ticket
 * with it. The old browser is refused from its next due check-in on (see holder.ts). A code is
 * single-use, dies with the place (and with any move of it), and wrong codes are counted per
 * address (429 past its budget) and per queue (past its budget every try needs a solved
 * proof-of-work challenge, proof.ts), so guessing costs work long before 40 bits are searched.
 */
import type { Clock, Random } from "../clock.ts";
import type { Config } from "../config.ts";
import { AppError, BadRequestError, RateLimitedError } from "../errors.ts";
import { attemptsOf, countAttempt, limitAddress, RATE_LIMITS } from "../admin/rate_limit.ts";
import { requireResumeProof } from "./proof.ts";
import { retryCommit } from "../store/commit.ts";
import { keys } from "../store/keys.ts";
import type { Signer, TicketClaims } from "../tokens.ts";
import { checkTicket, type Outcome } from "../queue/visitor.ts";
import type { Visitor } from "../queue/types.ts";
import type { HeldEngine } from "./held_engine.ts";
import { checkHolder, type Holder, HOLDER_TTL_MS, readHolder } from "./holder.ts";
import { newResumeCode, normalizeResumeCode, resumeCodeHash, showResumeCode } from "./code.ts";

/** What moving places needs from the service. */
export interface ResumeDeps {
  kv: Deno.Kv;
  clock: Clock;
  config: Pick<Config, "TOKEN_SECRET">;
  random: Random;
  signer: Signer;
  engine: HeldEngine;
}

/** A resume code record, at `keys.resumeCode(hash)`. */
export interface ResumeCodeRecord {
  queue: string;
  id: string;
  /** The place's arrival time: a later place under the same id is another place. */
  joinedAt: number;
  /** The holder generation that made the code: any move since makes it void. */
  gen: number;
}

/** Why a code was refused, in `details.reason`. */
export type ResumeRefusal = "unknown" | "other_queue" | "place_ended";

/** 404 `resume_code_invalid`: wrong, used, expired or foreign code; nothing changed. */
export class ResumeCodeError extends AppError {
  constructor(reason: ResumeRefusal, q: string) {
    super(
      404,
      "resume_code_invalid",
      reason === "other_queue"
        ? `this resume code is for another queue, not "${q}"`
        : reason === "place_ended"
        ? "the place of this resume code has ended (left, dropped, or already entered)"
        : "no such resume code: it is mistyped, was used already, or its place moved since",
      { reason },
    );
  }
}

/** The least time between two codes of one place (each is one write). */
const CODE_EVERY_MS = 3000;

/** A place a code can move: waiting, or admitted and not entered, with its hold not over. */
function movable(v: Visitor | null, now: number): v is Visitor {
  if (!v) return false;
  if (v.state === "waiting") return true;
  return v.state === "admitted" && (v.until ?? Infinity) > now;
}

/** A fresh code for the place `ticket` holds in `q` (the previous page code of it is void). */
export async function makeCode(
  d: ResumeDeps,
  q: string,
  ticket: TicketClaims | null,
): Promise<{ code: string; shown: string }> {
  const t = checkTicket(q, ticket);
  await d.engine.settings(q); // 404 unknown_queue
  return await retryCommit(async () => {
    const now = d.clock.now();
    const holder = await checkHolder(d.kv, q, t);
    const rec = await d.engine.visitor(q, t.sub);
    if (!movable(rec, now)) throw new ResumeCodeError("place_ended", q);
    const since = now - (holder.value?.codeAt ?? -Infinity);
    if (since < CODE_EVERY_MS) {
      throw new RateLimitedError(Math.ceil((CODE_EVERY_MS - since) / 1000));
    }
    const code = newResumeCode(d.random);
    const hash = resumeCodeHash(d.config.TOKEN_SECRET, code);
    const gen = holder.value?.gen ?? 0;
    // A new code never takes over a live one (2^40 codes: a clash is a retry, not a theft).
    const op = d.kv.atomic().check(holder, { key: keys.resumeCode(hash), versionstamp: null })
      .set(keys.resumeHolder(q, t.sub), { gen, codeHash: hash, codeAt: now } satisfies Holder, {
        expireIn: HOLDER_TTL_MS,
      })
      .set(
        keys.resumeCode(hash),
        { queue: q, id: t.sub, joinedAt: rec.joinedAt, gen } satisfies ResumeCodeRecord,
        { expireIn: HOLDER_TTL_MS },
      );
    if (holder.value?.codeHash) op.delete(keys.resumeCode(holder.value.codeHash));
    return (await op.commit()).ok ? { code, shown: showResumeCode(code) } : null;
  }, "resume code");
}

/**
 * A code for the e-mail at a visitor's turn, written into `op` (the commit that takes the
 * e-mail's request): it does not void the code the page shows.
 */
export function addMailCode(
  d: Pick<ResumeDeps, "config" | "random">,
  op: Deno.AtomicOperation,
  q: string,
  v: Visitor,
  gen: number,
): string {
  const code = newResumeCode(d.random);
  const key = keys.resumeCode(resumeCodeHash(d.config.TOKEN_SECRET, code));
  // Never over a live code: a clash fails the commit, and the job tries again next second.
  op.check({ key, versionstamp: null }).set(
    key,
    { queue: q, id: v.id, joinedAt: v.joinedAt, gen } satisfies ResumeCodeRecord,
    { expireIn: HOLDER_TTL_MS },
  );
  return code;
}

/**
 * Refuses a client already over its budget of wrong codes (429, nothing counted). A queue over
 * its budget asks every try for a solved challenge instead (proof.ts): a 429 there would let a
 * few hundred addresses switch resume off for everyone in the queue.
 */
async function checkBudget(d: ResumeDeps, q: string, addr: string, proof: unknown): Promise<void> {
  if (await attemptsOf(d.kv, d.clock, "resumeIp", addr) >= RATE_LIMITS.resumeIp.max) {
    const w = RATE_LIMITS.resumeIp.windowMs;
    throw new RateLimitedError(Math.max(1, Math.ceil((w - (d.clock.now() % w)) / 1000)));
  }
  if (await attemptsOf(d.kv, d.clock, "resumeQueue", q) >= RATE_LIMITS.resumeQueue.max) {
    await requireResumeProof(d, q, addr, proof);
  }
}

/**
 * `POST /resume`: moves the place of `typed` to the caller. Returns the place's view and the
 * ticket of its new holder. A refused code changes nothing but the wrong-code counts. A place the
 * caller held in the queue before (`current`: it opened the waiting room, then typed the code)
 * is given up, so it does not linger until its check-ins lapse. `proof` is the solved challenge
 * a queue over its budget of wrong codes asks for (proof.ts).
 */
export async function redeemCode(
  d: ResumeDeps,
  q: string,
  typed: string,
  ip: string,
  current: TicketClaims | null = null,
  proof?: unknown,
): Promise<Outcome & { ticket: string }> {
  const code = normalizeResumeCode(typed);
  if (code === null) {
    throw new BadRequestError("code must be 8 characters from 2-9 and A-Z without I and O", {
      fields: [{ path: "code", message: "not a resume code" }],
    });
  }
  await d.engine.settings(q); // 404 unknown_queue
  const addr = limitAddress(ip);
  await checkBudget(d, q, addr, proof);
  const hash = resumeCodeHash(d.config.TOKEN_SECRET, code);
  let claims: TicketClaims;
  try {
    claims = await retryCommit(async () => {
      const now = d.clock.now();
      const entry = await d.kv.get<ResumeCodeRecord>(keys.resumeCode(hash));
      const c = entry.value;
      if (!c) throw new ResumeCodeError("unknown", q);
      if (c.queue !== q) throw new ResumeCodeError("other_queue", q);
      const [holder, rec] = await Promise.all([
        readHolder(d.kv, q, c.id),
        d.engine.visitor(q, c.id),
      ]);
      if ((holder.value?.gen ?? 0) !== c.gen) throw new ResumeCodeError("unknown", q);
      if (!movable(rec, now) || rec.joinedAt !== c.joinedAt) {
        throw new ResumeCodeError("place_ended", q);
      }
      const gen = c.gen + 1;
      const op = d.kv.atomic().check(entry, holder).delete(keys.resumeCode(hash))
        .set(keys.resumeHolder(q, c.id), { gen } satisfies Holder, { expireIn: HOLDER_TTL_MS });
      // The old holder's page code dies with its generation; its record goes now.
      const old = holder.value?.codeHash;
      if (old && old !== hash) op.delete(keys.resumeCode(old));
      if (!(await op.commit()).ok) return null;
      return {
        sub: c.id,
        queue: q,
        iat: Math.floor(now / 1000),
        seq: rec.seq,
        nextCheckAt: rec.state === "waiting" ? rec.nextCheckAt : 0,
        hg: gen,
      };
    }, "resume");
  } catch (e) {
    if (e instanceof ResumeCodeError) {
      await Promise.all([
        countAttempt(d.kv, d.clock, "resumeIp", addr),
        countAttempt(d.kv, d.clock, "resumeQueue", q),
      ]);
    }
    throw e;
  }
  const ticket = await d.signer.signTicket(claims);
  if (current && current.queue === q && current.sub !== claims.sub) {
    await d.engine.leave(q, current, current.sub).catch(() => {});
  }
  const out = await d.engine.status(q, claims);
  return { ...out, ticket: out.ticket ?? ticket };
}
