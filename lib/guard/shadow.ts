/**
 * The shadow line: a client that fails the bot check (a wrong, forged or replayed solution) or
 * floods past its per-client limit gets a place that looks real (a position that creeps with the
 * real line, plausible waits, check-ins on schedule) but never admits, instead of an error that
 * tells its script to try again. It writes nothing, ever: a shadow visitor is known by its id
 * alone (ten random bytes and a six-byte tag under the service key, in the same shape as every
 * visitor id, so a client cannot tell), and every answer is computed from the real line in
 * memory. So its rows can never count against the waiting cap, the positions or the estimates of
 * real visitors.
 */
import { ConflictError } from "../errors.ts";
import { b64url, fromB64url, type Signer, type TicketClaims, timingSafeEqual } from "../tokens.ts";
import type { QueueContext, QueueView } from "../queue/context.ts";
import { estimateWaitSeconds } from "../queue/timeslot.ts";
import type { Branding } from "../branding.ts";
import type { VisitorView } from "../queue/types.ts";
import { waitingView, withPosition } from "../queue/view.ts";

const RANDOM_BYTES = 10;
const TAG_BYTES = 6;
const TAG_PURPOSE = "shadow";
/** The time prefix of a visitor id (see `newVisitorId`, lib/queue/join.ts). */
const PREFIX = 9;

/** The tag of a shadow id's time prefix and random part. */
function tagOf(signer: Signer, prefix: string, random: Uint8Array): Uint8Array {
  return signer.tag(TAG_PURPOSE, prefix + b64url(random)).subarray(0, TAG_BYTES);
}

/** A new shadow visitor id: shaped like `newVisitorId`'s, its last six bytes a tag. */
export function newShadowId(ctx: QueueContext): string {
  const prefix = ctx.now().toString(36).toUpperCase().padStart(PREFIX, "0");
  const random = ctx.random.bytes(RANDOM_BYTES);
  const bytes = new Uint8Array(RANDOM_BYTES + TAG_BYTES);
  bytes.set(random);
  bytes.set(tagOf(ctx.signer, prefix, random), RANDOM_BYTES);
  return prefix + b64url(bytes);
}

/** True when `id` is a shadow visitor's (its tag verifies; timing-safe). */
export function isShadowId(signer: Signer, id: string): boolean {
  if (id.length !== PREFIX + 22) return false;
  const bytes = fromB64url(id.slice(PREFIX));
  if (!bytes || bytes.length !== RANDOM_BYTES + TAG_BYTES) return false;
  const want = tagOf(signer, id.slice(0, PREFIX), bytes.subarray(0, RANDOM_BYTES));
  return timingSafeEqual(bytes.subarray(RANDOM_BYTES), want);
}

/**
 * A shadow visitor's view: its arrival number's place in the real line as it moves, but never
 * closer than a few places from the front (the floor differs per visitor, so a fleet of them does
 * not all stop at one number), with the estimate that place would have.
 */
export function shadowView(
  ctx: QueueContext,
  q: string,
  t: Pick<TicketClaims, "sub" | "seq" | "nextCheckAt">,
  v: QueueView,
  branding: Branding,
): VisitorView {
  const out = waitingView(ctx, q, t.sub, t.seq, t.nextCheckAt, v, branding);
  const floor = 2 + (t.sub.charCodeAt(PREFIX) % 5);
  const position = Math.max(floor, Math.min(ctx.position(v, t.seq), v.counts.nextSeq));
  if (v.settings.mode === "queue") return withPosition(ctx, out, v, position);
  const estimate = estimateWaitSeconds(ctx.now(), null, position, ctx.lineRate(v));
  out.estimatedWaitSeconds = Math.max(out.estimatedWaitSeconds ?? 0, estimate);
  return out;
}

/** A shadow visitor's next check-in: a period ahead, on a whole second (as real ones are). */
export function shadowNextCheck(ctx: QueueContext, v: QueueView): number {
  const sec = Math.ceil((ctx.now() + ctx.periodMs(v.counts.waiting)) / 1000);
  return sec * 1000;
}

/** A shadow visitor's answer and a fresh ticket: its join, or a due check-in. */
export async function shadowOutcome(
  ctx: QueueContext,
  q: string,
  t: Pick<TicketClaims, "sub" | "seq" | "nextCheckAt">,
): Promise<{ view: VisitorView; ticket: string }> {
  const v = await ctx.view(q);
  const due = t.nextCheckAt <= ctx.now();
  const next = { ...t, nextCheckAt: due ? shadowNextCheck(ctx, v) : t.nextCheckAt };
  const ticket = await ctx.signer.signTicket({
    sub: t.sub,
    queue: q,
    iat: Math.floor(ctx.now() / 1000),
    seq: next.seq,
    nextCheckAt: next.nextCheckAt,
  });
  return { view: shadowView(ctx, q, next, v, await ctx.branding(q)), ticket };
}

/** A new shadow place in `q`: an arrival number a real newcomer would get now. */
export async function shadowJoin(
  ctx: QueueContext,
  q: string,
): Promise<{ view: VisitorView; ticket: string }> {
  const v = await ctx.view(q);
  const seq = v.counts.nextSeq;
  return await shadowOutcome(ctx, q, { sub: newShadowId(ctx), seq, nextCheckAt: 0 });
}

/** What a shadow visitor's click-to-enter gets: what a waiting visitor's does. */
export function shadowEnter(id: string): never {
  throw new ConflictError("not_admitted", `visitor "${id}" is still waiting`);
}
