/**
 * The reads of one tick attempt, started together. Each was a round trip after the one before
 * (expired slots, then lapsed waiters, then their records, then the line, then its records), and
 * with 50 instances over a busy store a tick took over a second of them, so the next second went
 * without one (bench/scale_sim.ts). Now the lists go at once, and the records of the line's head
 * are read beside those of the expired and lapsed.
 */
import { keys } from "../store/keys.ts";
import type { QueueContext } from "./context.ts";
import { placedEntry } from "./placement.ts";
import type { QueueSettings, Visitor } from "./types.ts";

/** A visitor record as the opening draw placed it, with what its placement was read from. */
export type Read = Deno.KvEntry<Visitor> & { unplaced: Deno.KvEntryMaybe<unknown> | null };

/** Line entries read ahead: a tick's admissions plus the waiters it may drop before them. */
export const AHEAD = 120;

/** Reads visitor records (those not gone) as the opening draw placed them (see placement.ts). */
export async function readVisitors(ctx: QueueContext, q: string, ids: string[]): Promise<Read[]> {
  const out: Read[] = [];
  const reads = [];
  for (let i = 0; i < ids.length; i += 10) {
    reads.push(ctx.kv.getMany<Visitor[]>(ids.slice(i, i + 10).map((id) => keys.visitor(q, id))));
  }
  for (const got of await Promise.all(reads)) {
    for (const g of got) {
      if (!g.value) continue;
      out.push(await placedEntry(ctx.kv, q, g as Deno.KvEntry<Visitor>));
    }
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
  fifo: boolean,
  headCount: number,
  settings: QueueSettings,
): TickReads {
  const now = ctx.now();
  const graceMs = settings.returnGraceSeconds * 1000;
  const ids = async (sel: Deno.KvListSelector) => {
    const out: string[] = [];
    for await (const e of ctx.kv.list(sel, { limit: budget })) out.push(e.key[3] as string);
    return out;
  };
  const line = fifo
    ? (async () => {
      const out: Deno.KvEntry<string>[] = [];
      for await (const e of ctx.kv.list<string>(keys.fifoLine(q, 0), { limit: AHEAD })) {
        out.push(e);
      }
      return out;
    })()
    : Promise.resolve(undefined);
  const head = fifo
    ? line.then((entries) => {
      const ids = entries!.map((e) => e.value);
      return readVisitors(ctx, q, ids.slice(0, headCount));
    })
    : undefined;
  const reads: TickReads = {
    now,
    settings,
    expired: ids({ start: keys.expiryPrefix(q), end: [...keys.expiryPrefix(q), now + 1] }),
    lapsed: ids({
      start: keys.deadlinePrefix(q),
      end: [...keys.deadlinePrefix(q), now - graceMs],
    }),
    line,
    head,
  };
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
