/**
 * The arrivals a pipelined sequencer round reads ahead (sequencer.ts), its pages at once. A list
 * reads a page (at most 500 entries, KV's largest batch) a round trip, so a round of four pages
 * over a remote store waited four reads one after another, longer than its commit
 * (bench/RESULTS.md, "The sequencer behind a backlog"). With the last round's density the pages
 * are read side by side instead, as windows of arrival time of about half a page each, the last
 * one open-ended. A window that came back full (a burst) ends that: the rest is read on from its
 * last key as one list, as before. What is returned is always the arrivals from `from` on, in key
 * order, as far as it goes (each page is its own snapshot, as each page of one list already was).
 */
import { keys } from "../store/keys.ts";
import type { Visitor } from "./types.ts";

/** KV's largest list batch. */
const PAGE = 500;

/**
 * Up to `most` arrivals of `q` from the key `from` on (it included, when still there), read as
 * time windows of about half a page each at `msPer` milliseconds an arrival (see the header).
 */
export async function listWindows(
  kv: Deno.Kv,
  q: string,
  from: Deno.KvKey,
  msPer: number,
  most: number,
): Promise<Deno.KvEntry<Visitor>[]> {
  const prefix = keys.arrivalPrefix(q);
  // Windows of about half a page each, so that a burst seldom fills one.
  const count = Math.max(1, Math.ceil(2 * most / PAGE));
  const width = Math.max(1, Math.ceil(PAGE / 2 * msPer));
  const at = (i: number): Deno.KvKey => [...prefix, (from[2] as number) + i * width];
  const pages = await Promise.all(Array.from({ length: count }, (_, i) => {
    const start = i === 0 ? from : at(i);
    const sel = i === count - 1 ? { prefix, start } : { start, end: at(i + 1) };
    return Array.fromAsync(kv.list<Visitor>(sel, { limit: PAGE, batchSize: PAGE }));
  }));
  const out: Deno.KvEntry<Visitor>[] = [];
  for (const page of pages) {
    out.push(...page);
    if (page.length < PAGE) continue;
    // A full window may hold more: the windows after it are dropped, and the rest is one list
    // on from its last key (a hole can then only lie behind what was read, as in any list).
    const last = page[PAGE - 1].key;
    const rest = { limit: most - out.length + 1, batchSize: PAGE };
    if (out.length < most) {
      for await (const e of kv.list<Visitor>({ prefix, start: last }, rest)) {
        if (!sameKey(e.key, last)) out.push(e);
      }
    }
    break;
  }
  return out.slice(0, most);
}

/** True when keys `a` and `b` are the same. */
export function sameKey(a: Deno.KvKey, b: Deno.KvKey): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Milliseconds of arrival time an arrival of `batch` took (keys in order), or undefined. */
export function density(batch: Deno.KvEntry<Visitor>[]): number | undefined {
  if (batch.length < 2) return undefined;
  const ms = (e: Deno.KvEntry<Visitor>) => e.key[2] as number;
  return (ms(batch[batch.length - 1]) - ms(batch[0])) / (batch.length - 1);
}
