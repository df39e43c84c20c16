/**
 * "I need more time" (WCAG 2.2.1, Timing Adjustable): a visitor holding a click-to-enter slot
 * extends its hold by the hold length, at most `MAX_HOLD_EXTENSIONS` times. One commit: the
 * record's new end and its slot-expiry index entry move together (the tick's sweep re-reads the
 * record before freeing a slot, so a sweep that read the old entry frees nothing).
 */
import { ConflictError } from "../errors.ts";
import { retryCommit } from "../store/commit.ts";
import { keys } from "../store/keys.ts";
import type { TicketClaims } from "../tokens.ts";
import type { Engine } from "./engine.ts";
import { MAX_HOLD_EXTENSIONS, type Visitor, type VisitorView } from "./types.ts";
import { checkTicket, liveEntry } from "./visitor.ts";
import { admittedView } from "./view.ts";

/**
 * `POST /enter/extend`: the admitted view with the later `enterBy` and the extensions left
 * (`holdExtensionsLeft`). 409 `not_admitted` while waiting, `conflict` without click-to-enter,
 * once entered or when no extension is left; 404 `not_in_queue` when the hold already ended.
 */
export async function extendHold(
  d: { kv: Deno.Kv; engine: Engine },
  q: string,
  ticket: TicketClaims | null,
  visitorId: string,
): Promise<VisitorView & { holdExtensionsLeft: number }> {
  const t = checkTicket(q, ticket, visitorId);
  const branding = await d.engine.ctx.branding(q);
  if (!branding.clickToEnter) {
    throw new ConflictError("conflict", `queue "${q}" has no click-to-enter hold to extend`);
  }
  const holdMs = branding.admitHoldSeconds * 1000;
  return await retryCommit(async () => {
    // 404 `not_in_queue` once gone or its hold over.
    const { entry } = await liveEntry(d.engine.ctx, q, t.sub);
    const rec = entry.value;
    if (rec.state === "waiting") {
      throw new ConflictError("not_admitted", `visitor "${t.sub}" is still waiting`);
    }
    if (rec.state === "entered") throw new ConflictError("conflict", "entered already");
    const used = rec.holdExtensions ?? 0;
    if (used >= MAX_HOLD_EXTENSIONS) {
      throw new ConflictError("conflict", `the hold was extended ${used} times, the most allowed`);
    }
    const until = rec.until! + holdMs;
    const next: Visitor = { ...rec, until, holdExtensions: used + 1 };
    const ok = await d.kv.atomic().check(entry)
      .delete(keys.expiry(q, rec.until!, rec.id))
      .set(keys.expiry(q, until, rec.id), "admitted")
      .set(keys.visitor(q, rec.id), next)
      .commit();
    if (!ok.ok) return null;
    const view = await admittedView(d.engine.ctx, q, next);
    return { ...view, holdExtensionsLeft: MAX_HOLD_EXTENSIONS - used - 1 };
  }, "hold extension");
}
