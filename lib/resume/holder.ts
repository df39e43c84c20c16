/**
 * Which browser holds a place. A place moved to another device keeps its visitor id (and so its
 * enqueue key, its pre-queue entry and its position); what changes is the holder generation: the
 * new browser's ticket carries the new one (`hg`), and the small holder record says which is
 * current. The record is read only where the engine reads the store anyway (a due check-in, a
 * heartbeat, entering, leaving, a join that resumes), never for a status answered from memory:
 * the old browser learns that its place moved at its next due check-in, and can never be handed
 * the access token.
 */
import { AppError, NotFoundError } from "../errors.ts";
import { readVisitor } from "../queue/visitor.ts";
import { keys } from "../store/keys.ts";
import type { TicketClaims } from "../tokens.ts";

/** How long a holder record and a resume code outlive their last write (places end sooner). */
export const HOLDER_TTL_MS = 7 * 86_400_000;

/** The holder record of a place, at `keys.resumeHolder(queue, id)`. */
export interface Holder {
  /** The current holder generation (0, the first browser, has no record). */
  gen: number;
  /** HMAC of the code the current holder's page shows, if it asked for one. */
  codeHash?: string;
  /** When that code was made (unix ms): a new one is made at most every few seconds. */
  codeAt?: number;
}

/** 409 `place_moved`: this browser's place was moved to another device with its resume code. */
export class PlaceMovedError extends AppError {
  constructor(q: string) {
    super(
      409,
      "place_moved",
      `this place in queue "${q}" was moved to another device; enter a resume code from there to ` +
        "take it back",
    );
  }
}

/** Reads the holder record of visitor `id` (versioned, for a checked write). */
export function readHolder(kv: Deno.Kv, q: string, id: string) {
  return kv.get<Holder>(keys.resumeHolder(q, id));
}

/** The holder generation a ticket claims (0 for a ticket of a place never moved). */
export function ticketGen(t: Pick<TicketClaims, "hg">): number {
  return t.hg ?? 0;
}

/** Throws `PlaceMovedError` when ticket `t` is not the current holder of its place. */
export async function checkHolder(kv: Deno.Kv, q: string, t: Readonly<TicketClaims>) {
  const h = await readHolder(kv, q, t.sub);
  if ((h.value?.gen ?? 0) !== ticketGen(t)) throw new PlaceMovedError(q);
  return h;
}

/**
 * `GET /resume/held`'s answer for ticket `t`: throws `PlaceMovedError` when the place moved away
 * and 404 `not_in_queue` when it ended (left, dropped, or its hold or token ran out), so a page
 * that shows a code can say so at once. One round trip: the two records are read together.
 */
export async function checkHeld(kv: Deno.Kv, q: string, t: Readonly<TicketClaims>, now: number) {
  const [h, v] = await Promise.all([readHolder(kv, q, t.sub), readVisitor(kv, q, t.sub)]);
  if ((h.value?.gen ?? 0) !== ticketGen(t)) throw new PlaceMovedError(q);
  const rec = v.value;
  if (!rec || (rec.state !== "waiting" && (rec.until ?? Infinity) <= now)) {
    throw new NotFoundError(
      "not_in_queue",
      `this place in queue "${q}" has ended (left, dropped after missed check-ins, or its turn ` +
        "passed); join again to take a new place at the back",
    );
  }
}
