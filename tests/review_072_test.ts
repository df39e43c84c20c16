/**
 * Faults found reviewing the changes since release 0.7.1, over real KV. Release 0.7.1's own code
 * is taken from this repository's history (`git archive`) and run on the same store, as it runs
 * beside this code during a rollout: it knows nothing of the enters' sum (lib/queue/enters.ts).
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
