/**
 * The group committer shared by the joins' writes and the enters (lib/queue/batches.ts): items
 * that come while commits are in flight go together into the next; a further commit goes beside
 * one in flight only after the spread, or at once when a full commit's worth waits; a commit that
 * throws rejects its whole batch. Commits here are promises the test settles by hand, so every
 * batch's contents are exact. Then the joins' commits through it: each sum written once a commit.
 */
import { assert, assertEquals, assertRejects } from "./assert.ts";
import { GroupCommits } from "../lib/queue/batches.ts";
import { keys } from "../lib/store/keys.ts";
import { Client, makeApp } from "./helpers.ts";

interface Item {
  n: number;
  resolve: () => void;
  reject: (e: unknown) => void;
}

/** A committer whose commits wait for `release(i)`; `batches` records each batch's items. */
function harness(inFlight: number, full = 100) {
  const batches: number[][] = [];
  const gates: (() => void)[] = [];
  const commits = new GroupCommits<Item>({
    inFlight,
    full,
    cut: (waiting) => Math.min(waiting.length, full),
    commit: async (batch) => {
      batches.push(batch.map((p) => p.n));
      await new Promise<void>((r) => gates.push(r));
      if (batch.some((p) => p.n < 0)) throw new Error("lost");
      batch.forEach((p) => p.resolve());
    },
  });
  const add = (n: number) =>
    new Promise<void>((resolve, reject) => commits.add({ n, resolve, reject }));
  return { batches, release: (i: number) => gates[i](), add };
}

const tick = () => new Promise((r) => setTimeout(r, 0));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("group commits: what comes while one is in flight goes together into the next", async () => {
  const h = harness(1);
  const first = h.add(1);
  const rest = [h.add(2), h.add(3), h.add(4)];
  await tick();
  assertEquals(h.batches, [[1]]);
  h.release(0);
  await first;
  await tick();
  assertEquals(h.batches, [[1], [2, 3, 4]]);
  h.release(1);
  await Promise.all(rest);
});

Deno.test("group commits: a further one in flight only after the spread, with all that came", async () => {
  const h = harness(4);
  const all = [h.add(1), h.add(2), h.add(3)];
  await tick();
  // The first went at once; the others wait for the spread (5 ms), not a commit each.
  assertEquals(h.batches, [[1]]);
  await sleep(20);
  assertEquals(h.batches, [[1], [2, 3]]);
  h.release(0);
  h.release(1);
  await Promise.all(all);
});

Deno.test("group commits: a full commit's worth goes out at once beside one in flight", async () => {
  const h = harness(4, 3);
  const all = [h.add(1), h.add(2), h.add(3), h.add(4)];
  await tick();
  assertEquals(h.batches, [[1], [2, 3, 4]]);
  h.release(0);
  h.release(1);
  await Promise.all(all);
});

Deno.test("group commits: a commit that throws rejects its whole batch; the next goes on", async () => {
  const h = harness(1);
  const first = h.add(1);
  const lost = [h.add(-1), h.add(2), h.add(3)];
  await tick();
  h.release(0);
  await first;
  await tick();
  assertEquals(h.batches, [[1], [-1, 2, 3]]);
  h.release(1);
  for (const p of lost) assertEquals((await assertRejects(() => p)).message, "lost");
  const again = h.add(4);
  await tick();
  h.release(2);
  await again;
  assertEquals(h.batches.at(-1), [4]);
});

Deno.test("join commits: a batch writes each sum once, with the batch's totals", async () => {
  const kv = await Deno.openKv(":memory:");
  const ops: number[] = [];
  // Counts each atomic op's sums on the pending arrivals (one per commit, not one per join).
  const counting = new Proxy(kv, {
    get(t, name) {
      if (name !== "atomic") {
        const v = Reflect.get(t, name, t);
        return typeof v === "function" ? v.bind(t) : v;
      }
      return () => {
        const op = t.atomic();
        let pending = 0;
        const sum = op.sum.bind(op);
        op.sum = (key, n) => {
          if (key[0] === "arrivalsPending") pending++;
          return sum(key, n);
        };
        const commit = op.commit.bind(op);
        op.commit = () => (pending > 0 && ops.push(pending), commit());
        return op;
      };
    },
  });
  const { app, engine } = await makeApp({}, { kv: counting });
  await engine.setPaused("default", true);
  const answers = await Promise.all(Array.from({ length: 40 }, () => new Client(app).join()));
  assertEquals(answers.map((r) => r.status), Array(40).fill(202));
  assert(ops.length < 40, `40 joins in ${ops.length} commits`);
  assertEquals(ops, ops.map(() => 1), "one pending sum a commit");
  const sum = (await kv.get<Deno.KvU64>(keys.arrivalsPending("default"))).value?.value;
  assertEquals(sum, 40n, "the pending sum holds every join");
  let traffic = 0n, checkins = 0n;
  for await (const e of kv.list<Deno.KvU64>({ prefix: keys.trafficPrefix("default") })) {
    if (e.key[3] === "in") traffic += e.value.value;
  }
  for await (const e of kv.list<Deno.KvU64>({ prefix: keys.checkinsPrefix("default") })) {
    checkins += e.value.value;
  }
  assertEquals({ traffic, checkins }, { traffic: 40n, checkins: 40n }, "traffic and check-ins");
  kv.close();
});
