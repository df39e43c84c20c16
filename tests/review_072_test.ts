/**
 * Faults found reviewing the changes since release 0.7.1, over real KV. Release 0.7.1's own code
 * is taken from this repository's history (`git archive`) and run on the same store, as it runs
 * beside this code during a rollout: it knows nothing of the enters' sum (lib/queue/enters.ts).
 * Also the rule for a tick's later rounds (`TickRound.more`): above 80 admissions a second, in
 * either mode, and with more than a round's expiries, the second's work is all done; and joins a
 * sender gathers behind its three records out are answered within their own bound.
 */
import { keys } from "../lib/store/keys.ts";
import { assert, assertEquals } from "./assert.ts";
import { admitted, enter, stored } from "./enters_helpers.ts";
import { makeApp } from "./helpers.ts";

const PREVIOUS = "339268f";
const ROOT = new URL("..", import.meta.url).pathname;

/** True when the checkout holds 0.7.1's commit (a shallow clone may not). */
const inHistory = new Deno.Command("git", {
  args: ["-C", ROOT, "cat-file", "-e", `${PREVIOUS}^{commit}`],
  stdout: "null",
  stderr: "null",
}).outputSync().success;

/** 0.7.1's `lib/` unpacked into a temporary directory; returns that directory. */
async function previousLib(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "tollgate-review-" });
  const archive = new Deno.Command("git", {
    args: ["-C", ROOT, "archive", PREVIOUS, "lib"],
    stdout: "piped",
  }).spawn();
  const tar = new Deno.Command("tar", { args: ["-x", "-C", dir], stdin: "piped" }).spawn();
  await archive.stdout.pipeTo(tar.stdin);
  assert((await archive.status).success && (await tar.status).success, "git archive");
  return dir;
}

Deno.test({
  ignore: !inHistory,
  name: "a queue made again after 0.7.1 deleted it starts without the old queue's pending enters",
  fn: async () => {
    const dir = await previousLib();
    const t = await makeApp({ QUEUES: ["default", "shop"], ADMIT_PER_SECOND: 10, CAPACITY: 100 });
    try {
      // Three of "shop" entered through this code: their enters wait in the sum.
      await enter(t, await admitted(t, 3, "shop"), "shop");
      assertEquals((await stored(t.kv, "shop")).sum, 3n);
      // An operator deletes "shop" through an instance still on 0.7.1 (it knows no sum).
      const old = await import(`file://${dir}/lib/queue/remove.ts`);
      const gone = await old.deleteQueue(t.engine.ctx, "shop", {
        force: true,
        names: ["default", "shop"],
      });
      assertEquals((await t.kv.get(keys.counts("shop"))).versionstamp, null, "counts deleted");
      // Once the name is free, this code makes the queue again (from its config).
      t.clock.advance(gone.reusableAt + 1000 - t.clock.now());
      assertEquals(await t.engine.ensureQueues(["shop"]), [], "made again");
      const m = await t.engine.metrics("shop");
      assertEquals([m.holding, m.entered], [0, 0], "a new queue has nobody in its slots");
      // Its first tick takes in whatever sum it found: the record must stay non-negative.
      await enter(t, await admitted(t, 2, "shop"), "shop");
      t.clock.advance(1000);
      await t.engine.tick("shop");
      const s = await stored(t.kv, "shop");
      assertEquals([s.c.holding, s.c.entered, s.sum], [0, 2, 0n], "taken in: the two entered");
      const after = await t.engine.metrics("shop");
      assertEquals([after.holding, after.entered], [0, 2], "the two entered, nobody else");
    } finally {
      t.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

/** `n` waiting (joined while paused), then the queue open and a second on, its tick not run. */
async function line(t: Awaited<ReturnType<typeof makeApp>>, n: number): Promise<void> {
  await t.engine.setPaused("default", true);
  for (let i = 0; i < n; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, n - i) }, () => t.engine.join("default", null)),
    );
  }
  await t.engine.setPaused("default", false);
  t.clock.advance(1000);
}

for (const mode of ["queue", "lottery"] as const) {
  Deno.test(`a tick above 80 a second spends its budget in later rounds (${mode})`, async () => {
    const t = await makeApp({ ADMIT_PER_SECOND: 200, CAPACITY: 10_000 });
    try {
      await t.engine.updateSettings("default", (s) => void (s.mode = mode));
      await line(t, 500);
      const r = await t.engine.tick("default");
      assert(r.admitted > 80, `more than one round's 80: ${r.admitted}`);
      assert(r.bucketLeft < 1, `the budget spent: ${r.admitted} admitted, ${r.bucketLeft} left`);
      assertEquals(r.waiting, 500 - r.admitted);
    } finally {
      t.close();
    }
  });
}

Deno.test("a tick frees more than a round's 40 expired slots within its second", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 200, CAPACITY: 10_000 });
  try {
    await line(t, 130);
    const first = await t.engine.tick("default");
    assertEquals(first.admitted, 130);
    // Their holds lapse unentered: one tick of a later second frees all 130 slots.
    t.clock.advance(3600_000);
    const r = await t.engine.tick("default");
    assertEquals(r.expired, 130, JSON.stringify(r));
    const s = await stored(t.kv, "default");
    assertEquals([s.c.holding, s.c.entered, s.sum], [0, 0, 0n]);
  } finally {
    t.close();
  }
});
