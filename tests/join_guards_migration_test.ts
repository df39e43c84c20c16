/**
 * The join guards moved from a record of their own into the queue's settings. A store written by
 * a revision from before the move, and such a revision running beside this one on the same store
 * (a rollout), must keep every guard an operator saved, wherever it was saved last.
 */
import { readJoinGuards, writeJoinGuards } from "../lib/guard/settings.ts";
import { keys } from "../lib/store/keys.ts";
import { assertEquals } from "./assert.ts";
import { makeApp, type TestApp } from "./helpers.ts";

const q = "default";
const OLD = {
  challenge: "on",
  provider: "builtin",
  difficulty: 5000,
  autoJoinsPerMinute: 1200,
  autoWaiting: 10_000,
  requireEnqueueToken: false,
};

/** What the join path sees now (the settings afresh, as a new join batch reads them). */
async function live(t: TestApp) {
  t.engine.ctx.invalidate(q);
  return (await t.engine.settings(q)).joinGuards;
}

/** The queue record as a revision from before the move writes it: no `joinGuards` field. */
async function oldRevisionRewritesQueue(t: TestApp, patch: Record<string, unknown> = {}) {
  const e = await t.kv.get<Record<string, unknown>>(keys.queue(q));
  const { joinGuards: _, ...rest } = e.value!;
  await t.kv.set(keys.queue(q), { ...rest, ...patch });
}

/** The join's status without a proof: 403 `challenge_required` while the check is on. */
async function joinCode(t: TestApp): Promise<number> {
  const r = await t.fetch(
    new Request("http://x/join", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ queue: q }),
    }),
  );
  await r.body?.cancel();
  return r.status;
}

Deno.test("guards migration: a store from before the move keeps its saved guards", async () => {
  const t = await makeApp();
  try {
    // As a revision from before left it: the guards in their record, the queue's without them.
    await oldRevisionRewritesQueue(t);
    await t.kv.set(keys.joinGuards(q), OLD);
    assertEquals((await live(t)).challenge, "on");
    assertEquals((await live(t)).difficulty, 5000);
    assertEquals(await joinCode(t), 403);
    // A setting saved by this revision lands in the queue's record and the old record alike.
    await writeJoinGuards(t.kv, q, { difficulty: 7000 });
    const own = (await t.kv.get<{ joinGuards: { difficulty: number } }>(keys.queue(q))).value!;
    const old = (await t.kv.get<{ difficulty: number; challenge: string }>(keys.joinGuards(q)))
      .value!;
    assertEquals([own.joinGuards.difficulty, old.difficulty, old.challenge], [7000, 7000, "on"]);
    assertEquals((await live(t)).difficulty, 7000);
  } finally {
    await t.close();
  }
});

Deno.test("guards migration: an older revision beside this one, on one store", async () => {
  const t = await makeApp();
  try {
    await writeJoinGuards(t.kv, q, { challenge: "on", difficulty: 9000 });
    // The older revision saves the guards (only its record): that save wins, being later.
    await t.kv.set(keys.joinGuards(q), { ...OLD, challenge: "off", difficulty: 4000 });
    assertEquals([(await live(t)).challenge, (await live(t)).difficulty], ["off", 4000]);
    assertEquals((await joinCode(t)) < 300, true, "joined without a proof");
    // This revision then pauses the queue: the settings write carries the older save over.
    await t.engine.setPaused(q, true);
    const own = (await t.kv.get<{ joinGuards: { difficulty: number } }>(keys.queue(q))).value!;
    assertEquals(own.joinGuards.difficulty, 4000);
    assertEquals((await live(t)).difficulty, 4000);
    // The older revision rewrites the queue's record (dropping the field it does not know):
    // the guards are still those saved last, from the old record this revision keeps current.
    await writeJoinGuards(t.kv, q, { challenge: "on", difficulty: 6000 });
    await oldRevisionRewritesQueue(t, { paused: false });
    assertEquals([(await live(t)).challenge, (await live(t)).difficulty], ["on", 6000]);
    assertEquals((await t.engine.settings(q)).paused, false);
    assertEquals(await readJoinGuards(t.kv, q), await live(t));
  } finally {
    await t.close();
  }
});

Deno.test("guards migration: a queue made again after deletion starts from the defaults", async () => {
  const t = await makeApp({ QUEUES: ["default", "shop"] });
  try {
    await writeJoinGuards(t.kv, "shop", { challenge: "on" });
    await t.engine.deleteQueue("shop", true);
    assertEquals((await t.kv.get(keys.joinGuards("shop"))).value, null);
    // A stale old record (left by a revision from before, which did not delete it) is older
    // than the new queue's own settings, so it does not apply either.
    await t.kv.set(keys.joinGuards("shop"), OLD);
    const reborn = await t.kv.get<Record<string, unknown>>(keys.queue(q));
    await t.kv.set(keys.queue("shop"), { ...reborn.value!, name: "shop" });
    assertEquals((await readJoinGuards(t.kv, "shop")).challenge, "off");
  } finally {
    await t.close();
  }
});
