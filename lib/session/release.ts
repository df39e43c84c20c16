/**
 * The site ends a visitor's session: after checkout, or whenever it knows the visitor is done.
 * Reached through the origin proxy (`Tollgate-Command: release` on the origin's answer),
 * `POST /release` with the visitor's access token, and `release()` beside `requireAdmission()`.
 *
 * The slot is freed through the engine's own leave (the same commit `POST /leave` makes), so the
 * counts stay exact and the slot is free for the next tick. Then a release record is written
 * (ended.ts), kept until the released token would have expired anyway: this instance refuses the
 * token at once, every other instance within a second. Works in fixed and sliding queues alike.
 */
import { UnauthorizedError } from "../errors.ts";
import type { AccessClaims } from "../tokens.ts";
import { putEnded } from "./ended.ts";
import type { SessionKeeper } from "./keeper.ts";
import { countEnded } from "./stats.ts";

/** What a release did. */
export interface Released {
  queue: string;
  visitorId: string;
  /** True when a slot was freed (false: released before, or the token never held a slot). */
  freed: boolean;
}

/** Ends the session of the visitor whose token verified with `claims`; releasing twice is fine. */
export async function releaseSession(
  keeper: SessionKeeper,
  claims: AccessClaims,
): Promise<Released> {
  const { kv, now: clock, ttlSeconds, engine } = keeper.deps;
  const q = claims.queue, id = claims.sub;
  const out: Released = { queue: q, visitorId: id, freed: false };
  const look = keeper.ended.fresh();
  if (look) await look;
  if (keeper.ended.ended(q, id, claims.iat)) return out;
  const rec = await engine.visitor(q, id);
  let iat = claims.iat;
  // Only the session this token belongs to: a token of an earlier admission of the same visitor
  // frees nothing of a later one (its record was admitted after the token was issued).
  if (
    rec && rec.state === "entered" && Math.floor((rec.admittedAt ?? 0) / 1000) <= claims.iat
  ) {
    await engine.leave(q, { sub: id, queue: q, iat: claims.iat, seq: rec.seq, nextCheckAt: 0 }, id);
    out.freed = true;
    iat = Math.max(iat, Math.floor(rec.enteredAt! / 1000));
  }
  const now = clock();
  const record = { iat, exp: iat + ttlSeconds };
  const op = kv.atomic();
  putEnded(op, q, id, record, now);
  if (out.freed) countEnded(op, q, "released", now - (rec!.admittedAt ?? now));
  await op.commit();
  keeper.ended.note(q, id, record);
  keeper.forget(q, id);
  return out;
}

/** `releaseSession` for a raw token: 401 `unauthorized` when it does not verify (for `queue`). */
export async function releaseToken(
  keeper: SessionKeeper,
  token: string | null | undefined,
  queue?: string,
): Promise<Released> {
  const claims = await keeper.deps.signer.verifyAccessToken(token, keeper.deps.now(), queue);
  if (!claims) {
    throw new UnauthorizedError(
      queue === undefined
        ? "a valid access token is required to release a session"
        : `a valid access token for queue "${queue}" is required to release a session`,
    );
  }
  return await releaseSession(keeper, claims);
}
