/**
 * The records of a waiter and an admitted visitor, written the same way by every path that places,
 * admits or removes one (joins let in at once, the tick, force-admits, leaves, the draw).
 */
import { keys } from "../store/keys.ts";
import { addLaneAdmitted, RETURN_SLOT, slotOf, takeSeq } from "../priority/line.ts";
import type { Counts, Visitor } from "./types.ts";

/** Adds a waiting visitor's record and its two indexes (arrival order, liveness deadline). */
export function putWaiting(op: Deno.AtomicOperation, q: string, v: Visitor): void {
  op.set(keys.visitor(q, v.id), v).set(keys.deadline(q, v.deadline, v.id), v.seq);
  op.set(keys.fifo(q, v.seq), v.id);
}

/** Removes a waiting visitor's indexes (the record itself is rewritten or deleted by the caller). */
function dropWaitingIndexes(op: Deno.AtomicOperation, q: string, v: Visitor): void {
  op.delete(keys.fifo(q, v.seq))
    .delete(keys.deadline(q, v.deadline, v.id));
}

/** Takes a waiter out of the line (left or dropped): record, indexes, count, gone log. */
export function removeWaiting(
  op: Deno.AtomicOperation,
  q: string,
  v: Visitor,
  c: Counts,
  now: number,
): void {
  dropWaitingIndexes(op, q, v);
  op.delete(keys.visitor(q, v.id));
  logGone(op, q, v, now);
  c.waiting--;
  // A pre-queue participant leaving: a draw in progress must see it (see draw.ts).
  const arrival = v.arrival ?? v.seq;
  if (c.preCutoff && arrival >= c.preFrom && arrival < c.preCutoff) op.sum(keys.drawGuard(q), 1n);
}

/** When an entry at `now` starts and ends: whole seconds, as the token's `iat` and `exp`. */
function tokenWindow(now: number, ttlSeconds: number): { enteredAt: number; until: number } {
  const enteredAt = Math.floor(now / 1000) * 1000;
  return { enteredAt, until: enteredAt + ttlSeconds * 1000 };
}

/** Logs a departure that was not from the head of the line, for exact positions. */
export function logGone(op: Deno.AtomicOperation, q: string, v: Visitor, now: number): void {
  op.set(keys.gone(q, now, v.seq), 1);
}

/**
 * Turns a waiting visitor into an admitted one: `holdUntil` is when an unconfirmed admission
 * expires; with `enterTtlSeconds` it enters at once and holds its slot until its token expires.
 */
export function admitWaiting(
  op: Deno.AtomicOperation,
  q: string,
  v: Visitor,
  c: Counts,
  now: number,
  holdUntil: number,
  enterTtlSeconds?: number,
): Visitor {
  dropWaitingIndexes(op, q, v);
  c.waiting--;
  c.waitMsSum += now - v.joinedAt;
  c.waitCount++;
  return grantSlot(op, q, v, c, now, holdUntil, enterTtlSeconds);
}

/**
 * Gives a visitor a slot (from the line, or at once on join): admitted until `holdUntil`, or,
 * with `enterTtlSeconds`, entered until its token expires.
 */
export function grantSlot(
  op: Deno.AtomicOperation,
  q: string,
  v: Visitor,
  c: Counts,
  now: number,
  holdUntil: number,
  enterTtlSeconds?: number,
): Visitor {
  c.admitted++;
  let next: Visitor;
  if (enterTtlSeconds !== undefined) {
    next = { ...v, state: "entered", admittedAt: now, ...tokenWindow(now, enterTtlSeconds) };
    c.entered++;
  } else {
    next = { ...v, state: "admitted", admittedAt: now, until: holdUntil };
    c.holding++;
  }
  op.set(keys.visitor(q, v.id), next).set(keys.expiry(q, next.until!, v.id), next.state);
  return next;
}

/** Moves an admitted visitor to entered, holding its slot until its token expires. */
export function enterAdmitted(
  op: Deno.AtomicOperation,
  q: string,
  v: Visitor,
  c: Counts,
  now: number,
  ttlSeconds: number,
): Visitor {
  const { enteredAt, until } = tokenWindow(now, ttlSeconds);
  if (v.until !== undefined) op.delete(keys.expiry(q, v.until, v.id));
  const next: Visitor = { ...v, state: "entered", enteredAt, until };
  op.set(keys.visitor(q, v.id), next).set(keys.expiry(q, until, v.id), "entered");
  c.holding--;
  c.entered++;
  return next;
}

/** Frees an admitted or entered visitor's slot and deletes its record. */
export function releaseSlot(op: Deno.AtomicOperation, q: string, v: Visitor, c: Counts): void {
  op.delete(keys.visitor(q, v.id));
  if (v.until !== undefined) op.delete(keys.expiry(q, v.until, v.id));
  if (v.state === "entered") c.entered--;
  else c.holding--;
}

/**
 * An admission nobody learned of, its hold over, its visitor within its grace: it was away when its
 * turn came. The slot goes to the next visitor; the place waits at the front, in the line of
 * returners (lib/priority/line.ts, served before every other line), silent until it comes back or
 * its grace ends. The admission is not counted (it is counted when it goes in).
 */
export function returnToLine(
  op: Deno.AtomicOperation,
  q: string,
  v: Visitor,
  c: Counts,
  now: number,
): Visitor {
  op.delete(keys.expiry(q, v.until!, v.id));
  c.holding--;
  c.admitted--;
  c.waitCount--;
  c.waitMsSum -= (v.admittedAt ?? v.joinedAt) - v.joinedAt;
  addLaneAdmitted(c, slotOf(v.seq), -1);
  const { admittedAt: _a, until: _u, holdExtensions: _h, ...rest } = v;
  // Silent until it checks in again (its deadline is past, or now: a hold ends at or after it),
  // so no admission takes it before it comes back.
  const deadline = Math.min(v.deadline, now - 1);
  const back: Visitor = { ...rest, state: "waiting", seq: takeSeq(c, RETURN_SLOT), deadline };
  putWaiting(op, q, back);
  c.waiting++;
  return back;
}
