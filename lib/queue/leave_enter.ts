/**
 * The two calls that end a visitor's wait: `POST /enter` (click-to-enter confirms an admission)
 * and `POST /leave` (frees the place or slot). Status and heartbeats are in visitor.ts.
 */
import { ConflictError } from "../errors.ts";
import { retryCommit } from "../store/commit.ts";
import { keys } from "../store/keys.ts";
import type { TicketClaims } from "../tokens.ts";
import type { QueueContext } from "./context.ts";
import { placedEntry } from "./placement.ts";
import { releaseSlot, removeWaiting } from "./records.ts";
import { takeInEnters } from "./enters.ts";
import type { Visitor } from "./types.ts";
import { admittedView } from "./view.ts";
import { checkTicket, enterNow, liveEntry, type Outcome } from "./visitor.ts";

/** `POST /enter`: confirms a click-to-enter admission; 409 while still waiting. */
export async function enter(
  ctx: QueueContext,
  q: string,
  ticket: TicketClaims | null,
  visitorId: string,
): Promise<Outcome> {
  const t = checkTicket(q, ticket, visitorId);
  await ctx.view(q);
  return await retryCommit(async () => {
    const { entry } = await liveEntry(ctx, q, t.sub);
    const rec = entry.value;
    if (rec.state === "waiting") {
      throw new ConflictError("not_admitted", `visitor "${t.sub}" is still waiting`);
    }
    if (rec.state === "entered") return { view: await admittedView(ctx, q, rec) };
    return await enterNow(ctx, q, entry);
  }, "enter");
}

/** `POST /leave`: frees the visitor's place or slot; leaving twice is not an error. */
export async function leave(
  ctx: QueueContext,
  q: string,
  ticket: TicketClaims | null,
  visitorId: string,
): Promise<void> {
  const t = checkTicket(q, ticket, visitorId);
  await ctx.view(q);
  await leaveById(ctx, q, t.sub);
}

/** Notes visitor `id`'s leave for the sequencer, checked against its record as read (`at`). */
export async function noteLeave(ctx: QueueContext, q: string, id: string, at?: Deno.AtomicCheck) {
  const op = ctx.kv.atomic().set(keys.leftEarly(q, id), 1, { expireIn: 86_400_000 });
  return (await (at ? op.check(at) : op).commit()).ok;
}

/**
 * Frees visitor `id`'s place or slot. A join not numbered yet leaves a note for the sequencer
 * instead (nobody else writes an unnumbered record; see sequencer.ts), checked against the record
 * as read, so a numbering that lands first makes this an ordinary leave.
 */
export async function leaveById(ctx: QueueContext, q: string, id: string): Promise<void> {
  await retryCommit(async () => {
    const raw = await ctx.kv.get<Visitor>(keys.visitor(q, id));
    if (!raw.value) return true;
    if (raw.value.state === "waiting" && raw.value.seq === 0) {
      return await noteLeave(ctx, q, id, raw) ? true : null;
    }
    const entry = await placedEntry(ctx.kv, q, raw as Deno.KvEntry<Visitor>);
    const rec = entry.value;
    const ok = await ctx.serial(q, async () => {
      const { counts, entry: ce, pending } = await ctx.readCounts(q);
      const op = ctx.kv.atomic().check(entry, ce);
      // An entered visitor's enter may be pending still: taken in before its slot is freed.
      takeInEnters(op, q, counts, pending);
      // Not placed yet: the draw must not write its line entry unseen (see placement.ts).
      if (entry.unplaced) op.check(entry.unplaced);
      if (rec.state === "waiting") removeWaiting(op, q, rec, counts, ctx.now());
      else releaseSlot(op, q, rec, counts);
      op.set(keys.counts(q), counts);
      op.delete(keys.leftEarly(q, id));
      return (await op.commit()).ok;
    });
    if (!ok) return null;
    ctx.invalidate(q);
    return true;
  }, "leave");
}
