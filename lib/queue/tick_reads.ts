/**
 * The reads of one tick attempt, started together: one after another (expired slots, lapsed
 * waiters, their records, the line, its records), with 50 instances over a busy store a tick took
 * over a second of round trips and the next second went without one (bench/scale_sim.ts).
 */
import { getAll } from "../store/get_all.ts";
import { keys } from "../store/keys.ts";
import type { QueueContext } from "./context.ts";
import { placedEntry } from "./placement.ts";
import type { QueueSettings, Visitor } from "./types.ts";

/** A visitor record as the opening draw placed it, with what its placement was read from. */
export type Read = Deno.KvEntry<Visitor> & { unplaced: Deno.KvEntryMaybe<unknown> | null };

/** Line entries read ahead: a tick's admissions plus the waiters it may drop before them. */
export const AHEAD = 120;

/** Reads visitor records (those not gone) as the opening draw placed them (see placement.ts). */
async function readVisitors(ctx: QueueContext, q: string, ids: string[]): Promise<Read[]> {
  const out: Read[] = [];
  for (const g of await getAll<Visitor>(ctx.kv, ids.map((id) => keys.visitor(q, id)))) {
    if (g.value) out.push(await placedEntry(ctx.kv, q, g as Deno.KvEntry<Visitor>));
  }
  return out;
}

/** One attempt's reads in flight. */
export interface TickReads {
  /** The time they were started at (the attempt's now). */
  now: number;
  /** The settings the attempt read (the grace of silent waiters). */
  settings: QueueSettings;
  /** Visitors whose admission or token expired, up to the budget. */
  expired: Promise<string[]>;
  /** Waiters past their liveness deadline and its grace, up to the budget. */
  lapsed: Promise<string[]>;
  /** The line's first `AHEAD` entries (first come, first served only). */
  line: Promise<Deno.KvEntry<string>[] | undefined>;
  /** The records of the line's first waiters. */
  head: Promise<Read[]> | undefined;
}

/** Starts a tick attempt's reads; `headCount` waiters' records are read as soon as the line is. */
export function startTickReads(
  ctx: QueueContext,
  q: string,
  budget: number,
  headCount: number,
  settings: QueueSettings,
): TickReads {
  const now = ctx.now();
  const fifo = settings.mode === "queue";
  // The ids of an index (expiry or deadline) up to `end`.
  const ids = async (prefix: Deno.KvKey, end: number) => {
    const list = ctx.kv.list({ start: prefix, end: [...prefix, end] }, { limit: budget });
    return (await Array.fromAsync(list)).map((e) => e.key[3] as string);
  };
  const line = fifo
    ? Array.fromAsync(ctx.kv.list<string>(keys.fifoLine(q, 0), { limit: AHEAD }))
    : Promise.resolve(undefined);
  const head = fifo
    ? line.then((l) => readVisitors(ctx, q, l!.slice(0, headCount).map((e) => e.value)))
    : undefined;
  const expired = ids(keys.expiryPrefix(q), now + 1);
  const lapsed = ids(keys.deadlinePrefix(q), now - settings.returnGraceSeconds * 1000);
  const reads: TickReads = { now, settings, expired, lapsed, line, head };
  // An attempt that ends early leaves some unawaited: their failures are its own, not the process's.
  for (const p of [reads.expired, reads.lapsed, reads.line, reads.head]) p?.catch(() => {});
  return reads;
}

/** The records of `ids` (those not gone), from `known` where it has them, else read now. */
export async function readKnown(
  ctx: QueueContext,
  q: string,
  ids: string[],
  known?: Promise<Read[]>,
): Promise<Read[]> {
  if (!known) return await readVisitors(ctx, q, ids);
  const have = new Map((await known).map((e) => [e.value.id, e]));
  const rest = ids.filter((id) => !have.has(id));
  for (const e of rest.length > 0 ? await readVisitors(ctx, q, rest) : []) have.set(e.value.id, e);
  return ids.flatMap((id) => have.get(id) ?? []);
}
