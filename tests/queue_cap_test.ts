/**
 * The queue cap holds under concurrent creates: counting and then making let two creates at 99
 * queues both pass. Creates fired together at the edge of the cap make exactly the queues left.
 */
import { HOLD_MS, releaseQueuePlace, takeQueuePlace } from "../lib/admin/queue_cap.ts";
import { BadRequestError } from "../lib/errors.ts";
import { keys } from "../lib/store/keys.ts";
import { MAX_QUEUES } from "../routes/admin/settings.ts";
import { adminClient } from "./admin_helpers.ts";
import { assert, assertEquals } from "./assert.ts";
import { makeApp } from "./helpers.ts";

const Q = "/api/admin/queues";

async function queueCount(kv: Deno.Kv): Promise<number> {
  let n = 0;
  for await (const _ of kv.list({ prefix: keys.queues() })) n++;
  return n;
}

Deno.test("queue cap: concurrent creates two short of the cap make two queues, never more", async () => {
  const t = await makeApp({ QUEUES: ["default"] });
  try {
    const { client: admin } = await adminClient(t);
    await t.engine.ensureQueues(Array.from({ length: MAX_QUEUES - 3 }, (_, i) => `q${i}`));
    assertEquals(await queueCount(t.kv), MAX_QUEUES - 2);
    const names = Array.from({ length: 6 }, (_, i) => `racer-${i}`);
    const out = await Promise.all(names.map((name) => admin.req("POST", Q, { name })));
    const made = out.filter((r) => r.status === 200).length;
    assertEquals(made, 2, out.map((r) => r.status).join(","));
    for (const r of out.filter((r) => r.status !== 200)) {
      assertEquals(r.status, 400);
      assertEquals(r.json.error.details.fields[0].path, "name");
    }
    assertEquals(await queueCount(t.kv), MAX_QUEUES);
    // Every place was given back: nothing pending is left to count.
    assertEquals((await t.kv.get(keys.queueCreates())).value, {});
  } finally {
    t.close();
  }
});

Deno.test("queue cap: a place whose create died lapses, and an existing name takes none", async () => {
  const t = await makeApp({ QUEUES: ["default"] });
  try {
    await takeQueuePlace(t.kv, t.clock, "died", 2);
    let refused = false;
    try {
      await takeQueuePlace(t.kv, t.clock, "other", 2);
    } catch (e) {
      refused = e instanceof BadRequestError;
    }
    assert(refused, "the pending place counts");
    // An existing queue's name is an edit: no place, also at the cap.
    await takeQueuePlace(t.kv, t.clock, "default", 2);
    t.clock.advance(HOLD_MS + 1);
    await takeQueuePlace(t.kv, t.clock, "other", 2);
    await releaseQueuePlace(t.kv, "other");
    assertEquals((await t.kv.get(keys.queueCreates())).value, {});
  } finally {
    t.close();
  }
});
