/**
 * The sequencer's read ahead in time windows (lib/queue/arrivals_ahead.ts) returns what one plain
 * list from the same key returns, in the same order, whatever the density it was told: arrivals
 * spread out, a burst of over a page in one millisecond, a guess far too wide or far too narrow,
 * and a start key that is still there. Otherwise a round would number arrivals out of arrival order
 * or skip some.
 */
import { density, listWindows } from "../lib/queue/arrivals_ahead.ts";
import { keys } from "../lib/store/keys.ts";
import type { Visitor } from "../lib/queue/types.ts";
import { assert, assertEquals } from "./assert.ts";

const Q = "default";

/** Writes arrivals at the given milliseconds (several at one ms get counters 0, 1, ...). */
async function write(kv: Deno.Kv, msList: number[], instance = "i1"): Promise<void> {
  const n = new Map<number, number>();
  for (let i = 0; i < msList.length; i += 300) {
    const op = kv.atomic();
    for (const ms of msList.slice(i, i + 300)) {
      const c = n.get(ms) ?? 0;
      n.set(ms, c + 1);
      const v: Visitor = {
        id: `v${ms}-${instance}-${c}`,
        seq: 0,
        joinedAt: ms,
        state: "waiting",
        nextCheckAt: 0,
        deadline: 0,
        mark: [ms, instance, c],
      };
      op.set(keys.arrival(Q, ms, instance, c), v);
    }
    assert((await op.commit()).ok);
  }
}

/** What a plain list from `from` returns, at most `most`. */
async function plain(kv: Deno.Kv, from: Deno.KvKey, most: number): Promise<string[]> {
  const sel = { prefix: keys.arrivalPrefix(Q), start: from };
  const got = await Array.fromAsync(kv.list<Visitor>(sel, { limit: most }));
  return got.map((e) => e.value.id);
}

Deno.test("windows read ahead give the plain list's arrivals in order, whatever the density guess", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const ms: number[] = [];
    // Spread out (one every 3 ms), then a burst of 700 in one ms, then two instances interleaved.
    for (let i = 0; i < 900; i++) ms.push(1_000 + 3 * i);
    for (let i = 0; i < 700; i++) ms.push(5_000);
    for (let i = 0; i < 800; i++) ms.push(6_000 + i);
    await write(kv, ms);
    await write(kv, Array.from({ length: 400 }, (_, i) => 6_000 + 2 * i), "i2");
    const all = await Array.fromAsync(kv.list<Visitor>({ prefix: keys.arrivalPrefix(Q) }));
    const starts = [all[0].key, all[450].key, all[899].key, all[1_200].key, all[2_500].key];
    for (const from of starts) {
      for (const msPer of [0, 0.01, 1, 3, 50, 10_000]) {
        for (const most of [1, 499, 1_741]) {
          const want = await plain(kv, from, most);
          const got = (await listWindows(kv, Q, from, msPer, most)).map((e) => e.value.id);
          assertEquals(got, want, `from ${String(from)}, msPer ${msPer}, most ${most}`);
        }
      }
    }
  } finally {
    kv.close();
  }
});

Deno.test("an arrival's density is the time its batch took over its arrivals", () => {
  const entry = (ms: number) =>
    ({
      key: keys.arrival(Q, ms, "i1", 0),
      value: {},
      versionstamp: "0",
    }) as unknown as Deno.KvEntry<
      Visitor
    >;
  assertEquals(density([entry(100), entry(110), entry(130)]), 15);
  assertEquals(density([entry(100)]), undefined);
});
