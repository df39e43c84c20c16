import { AppError, JoinUnconfirmedError, StoreBusyError } from "../errors.ts";
import { keys } from "../store/keys.ts";
import { b64url, type TicketClaims } from "../tokens.ts";
import type { QueueContext } from "./context.ts";
import { type JoinBatcher, type Joined, type JoinRecord, KeyTakenError } from "./join_batch.ts";
import { admittedView, waitingView } from "./view.ts";
import { type Outcome, settle, ticketFor } from "./visitor.ts";
import { leave } from "./leave_enter.ts";
import type { Visitor } from "./types.ts";

export { JoinBatcher, type JoinRecord } from "./join_batch.ts";

/** A join's result: the visitor's view (admitted or waiting) and the ticket to set. */
export interface JoinOutcome extends Outcome {
  ticket: string;
}

/** What the join guards passed: records for the join's commit, the enqueue key's hash. */
export interface JoinGuardPass {
  records: JoinRecord[];
  /** SHA-256 of the enqueue key, base64url: the key holds at most one place in the queue. */
  enqueueKey?: string;
}

/** How long the record of an enqueue key's place outlives its last write (a stale one is reused). */
export const ENQUEUE_KEY_TTL_MS = 7 * 86_400_000;

/** New visitor id: a sortable time prefix and 128 random bits, base64url. */
export function newVisitorId(ctx: QueueContext): string {
  // A time prefix (base 36, digits and capitals sort in byte order) keeps new records close
  // together in the KV file, which makes group commits several times faster than random ids.
  const t = ctx.now().toString(36).toUpperCase().padStart(9, "0");
  return t + b64url(ctx.random.bytes(16));
}

/** Resumes visitor `id`: its current view and a ticket for it (404 `not_in_queue` when gone). */
async function resume(ctx: QueueContext, q: string, id: string): Promise<JoinOutcome> {
  const out = await settle(ctx, q, id, "join");
  const rec = await ctx.kv.get<Visitor>(keys.visitor(q, id));
  const tk = out.ticket ?? (rec.value ? await ticketFor(ctx, q, rec.value) : "");
  return { ...out, ticket: tk };
}

/** True for the engine's 404 `not_in_queue` (the visitor is gone). */
const isGone = (e: unknown) => e instanceof AppError && e.code === "not_in_queue";

/**
 * `POST /join`: a valid ticket for this queue resumes its visitor (a conflicting body id is
 * ignored); a visitor that is gone joins again at the back under the same id. `guard` is what
 * the join guards passed: its records go into the join's group commit, and an enqueue key that
 * already holds a place resumes that place (from any browser) instead of taking another.
 * `beforeNewPlace` runs once, only when a new place is about to be taken (it may refuse it).
 */
export async function join(
  ctx: QueueContext,
  batcher: JoinBatcher,
  q: string,
  ticket: TicketClaims | null,
  visitorId?: string,
  guard: JoinGuardPass = { records: [] },
  beforeNewPlace?: () => Promise<void>,
): Promise<JoinOutcome> {
  await ctx.view(q);
  let id = visitorId;
  let supplied = visitorId !== undefined;
  if (ticket && ticket.queue === q) {
    try {
      return await resume(ctx, q, ticket.sub);
    } catch (e) {
      if (!isGone(e)) throw e;
      // An admission that ran out may still have a record until the sweep: free it first.
      await leave(ctx, q, ticket, ticket.sub);
    }
    id = ticket.sub;
    supplied = true;
  }
  id ??= newVisitorId(ctx);
  let joined: Joined | undefined;
  let charged = false;
  for (let attempt = 0; !joined; attempt++) {
    const records = [...guard.records];
    if (guard.enqueueKey !== undefined) {
      const key = keys.enqueueKey(q, guard.enqueueKey);
      const held = await ctx.kv.get<string>(key);
      if (held.value !== null) {
        const out = await heldPlace(ctx, q, held.value);
        if (out) return out;
      }
      records.push({
        key,
        value: id,
        expect: held.versionstamp,
        expireIn: ENQUEUE_KEY_TTL_MS,
        conflict: () => new KeyTakenError(),
      });
    }
    // Only now is this a new place (not a held one resumed): the per-client limit counts it.
    if (!charged) await beforeNewPlace?.();
    charged = true;
    try {
      joined = await batcher.add(q, id, supplied, records);
    } catch (e) {
      if (e instanceof StoreBusyError) throw await unconfirmed(ctx, q, id, e);
      // Another join took the key first: the next round resumes its place.
      if (!(e instanceof KeyTakenError) || attempt >= 3) throw e;
    }
  }
  const { visitor: v, line } = joined;
  const ticketStr = await ticketFor(ctx, q, v);
  if (v.state !== "waiting" || !line) {
    return { view: await admittedView(ctx, q, v), ticket: ticketStr };
  }
  const branding = await ctx.branding(q);
  return {
    // The line as this join's commit left it, not this instance's cached view: another
    // instance's joins and ticks since the view was read would make the position wrong.
    view: waitingView(ctx, q, v.id, v.seq, v.nextCheckAt, line, branding),
    ticket: ticketStr,
  };
}

/**
 * The place an enqueue key holds, resumed; null when its visitor is gone (then the key joins
 * again, at the back). An admission that ran out but is not swept yet is freed first.
 */
async function heldPlace(ctx: QueueContext, q: string, id: string): Promise<JoinOutcome | null> {
  const rec = (await ctx.kv.get<Visitor>(keys.visitor(q, id))).value;
  if (!rec) return null;
  try {
    return await resume(ctx, q, id);
  } catch (e) {
    if (!isGone(e)) throw e;
    const claims: TicketClaims = { sub: id, queue: q, iat: 0, seq: rec.seq, nextCheckAt: 0 };
    await leave(ctx, q, claims, id);
    return null;
  }
}

/**
 * The 503 of a join that ran out of time: its write may still land (a commit the store took
 * late, an instance paused mid-commit), so the answer carries the ticket of the id it tried. With
 * it a retry resumes that place, or joins under that id when it was never written.
 */
async function unconfirmed(
  ctx: QueueContext,
  q: string,
  id: string,
  e: StoreBusyError,
): Promise<JoinUnconfirmedError> {
  const claims = { sub: id, queue: q, iat: Math.floor(ctx.now() / 1000), seq: 0, nextCheckAt: 0 };
  const why = e.message.replace(/^join: /, "").replace(/; try again in a few seconds$/, "");
  return new JoinUnconfirmedError(why, id, await ctx.signer.signTicket(claims));
}
