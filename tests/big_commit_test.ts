/**
 * The largest join commit (MOST_JOINS joins, most in chunks) goes through real KV within its
 * limits (1,000 mutations, 800 KiB), and its joins are answered with exact positions.
 */
import { delayedKv } from "../testing/delayed_kv.ts";
import { keys } from "../lib/store/keys.ts";
import { MOST_JOINS } from "../lib/queue/join_round.ts";
import type { Counts } from "../lib/queue/types.ts";
import { assertEquals } from "./assert.ts";
import { makeApp } from "./helpers.ts";

const Q = "default";

Deno.test("a crowd larger than one commit: one commit takes MOST_JOINS within KV's limits, every position exact", async () => {
  const real = await Deno.openKv(":memory:");
  // The next arrival number before each commit that writes the counts: the steps between them
  // are the joins each commit placed.
  const befores = new Set<number>();
  const kv = delayedKv(real, {
    readMs: 1,
    commitMs: 200,
    beforeCommit: async (written) => {
      if (!written.some((k) => k[0] === keys.counts(Q)[0])) return;
      befores.add((await real.get<Counts>(keys.counts(Q))).value?.nextSeq ?? 1);
    },
  });
  const t = await makeApp({ ADMIT_PER_SECOND: 1, CAPACITY: 0 }, { kv });
  // One join first, so the crowd meets a commit in flight and gathers behind it.
  const first = t.engine.join(Q, null);
  const n = MOST_JOINS + 300;
  const outs = await Promise.all([
    first,
    ...Array.from({ length: n }, () => t.engine.join(Q, null)),
  ]);
  const c = (await real.get<Counts>(keys.counts(Q))).value!;
  assertEquals(c.nextSeq - 1, n + 1, "each placed once");
  const positions = outs.map((o) => o.view.position!).sort((a, b) => a - b);
  assertEquals(positions, Array.from({ length: n + 1 }, (_, i) => i + 1), "every position exact");
  const marks = [...befores, c.nextSeq].sort((a, b) => a - b);
  const sizes = marks.slice(1).map((m, i) => m - marks[i]);
  assertEquals(Math.max(...sizes), MOST_JOINS, `joins per commit: ${sizes.join(", ")}`);
  real.close();
});
