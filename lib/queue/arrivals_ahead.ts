/**
 * The arrivals a pipelined sequencer round reads ahead (sequencer.ts), its pages at once. A list
 * reads a page (at most 500 entries, KV's largest batch) a round trip, so a round of four pages
 * over a remote store waited four reads one after another, longer than its commit
 * (bench/RESULTS.md, "The sequencer behind a backlog"). With the last round's density the pages
 * are read side by side instead, as windows of arrival time of about half a page each, the last
 * one open-ended. A window that came back full reads on from its last key (a burst, one more round
 * trip), and what is returned is always the arrivals from `from` on, in key order, as far as it goes
 * (each page is its own snapshot, as each page of one list already was).
 */
import { keys } from "../store/keys.ts";
import type { Visitor } from "./types.ts";

/** KV's largest list batch. */
const PAGE = 500;

/** One window of arrival time: where its next page starts, its end, what it listed so far. */
interface Window {
  next: Deno.KvKey;
  end?: Deno.KvKey;
  got: Deno.KvEntry<Visitor>[];
  /** True once a page came back short: the window holds nothing more. */
  done: boolean;
}

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
  // Windows of about half a page each: a burst seldom fills one, and one it fills reads on.
  const count = Math.max(1, Math.ceil(2 * most / PAGE));
  const width = Math.max(1, Math.ceil(PAGE / 2 * msPer));
  const at = (i: number): Deno.KvKey => [...prefix, (from[2] as number) + i * width];
  const windows: Window[] = Array.from({ length: count }, (_, i) => ({
    next: i === 0 ? from : at(i),
    end: i === count - 1 ? undefined : at(i + 1),
    got: [],
    done: false,
  }));
  for (;;) {
    // The arrivals known in order: every window up to and with the first that may hold more.
    const open = windows.findIndex((w) => !w.done);
    const upTo = open < 0 ? windows.length : open + 1;
    const known = windows.slice(0, upTo).flatMap((w) => w.got);
    if (open < 0 || known.length >= most) return known.slice(0, most);
    await Promise.all(windows.slice(open).filter((w) => !w.done).map((w) => page(kv, prefix, w)));
  }
}

/** Reads the next page of window `w` (its start key is the last one read: skipped). */
async function page(kv: Deno.Kv, prefix: Deno.KvKey, w: Window): Promise<void> {
  const sel = w.end ? { start: w.next, end: w.end } : { prefix, start: w.next };
  const got = await Array.fromAsync(kv.list<Visitor>(sel, { limit: PAGE, batchSize: PAGE }));
  const last = w.got.at(-1)?.key;
  const fresh = last && got[0] && sameKey(got[0].key, last) ? got.slice(1) : got;
  w.got.push(...fresh);
  w.done = got.length < PAGE;
  if (!w.done) w.next = got[got.length - 1].key;
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
