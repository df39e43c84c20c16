/**
 * A visitor told "not placed" never holds two places (issue 36, part 2): a join whose commit the
 * store takes after the answer ran out of time answers 503 with the ticket of the id it tried, so
 * the visitor's retry resumes the place that was written after all (or joins under the same id
 * when nothing was written).
 */
import { delayedKv } from "../testing/delayed_kv.ts";
import { keys } from "../lib/store/keys.ts";
import { assert, assertEquals } from "./assert.ts";
import { Client, makeApp, type TestApp } from "./helpers.ts";

function served(t: TestApp): Client {
  return new Client({ request: (p, init) => t.fetch(new Request(`http://localhost${p}`, init)) });
}

async function rows(kv: Deno.Kv): Promise<string[]> {
  const out: string[] = [];
  for await (const e of kv.list({ prefix: keys.visitorPrefix("default") })) {
    out.push(e.key[2] as string);
  }
  return out;
}

async function landed(kv: Deno.Kv, n: number): Promise<string[]> {
  const by = Date.now() + 8000;
  let got = await rows(kv);
  while (got.length < n && Date.now() < by) {
    await new Promise((r) => setTimeout(r, 50));
    got = await rows(kv);
  }
  return got;
}

Deno.test("a join answered 503 whose commit lands later: the retry gets that same place, never a second", async () => {
  const real = await Deno.openKv(":memory:");
  const delays = { readMs: 0, commitMs: 0 };
  const t = await makeApp({}, { kv: delayedKv(real, delays) });
  await t.engine.setPaused("default", true);
  const v = served(t);
  delays.commitMs = 3500;
  const r = await v.join("default", "late-visitor-1");
  assertEquals([r.status, r.json.error.code], [503, "store_busy"]);
  assertEquals(r.json.error.details.visitorId, "late-visitor-1");
  assert(v.cookies.has("tg_ticket"), "the 503 carries the ticket of the id it tried");
  assertEquals(v.visitorId, "late-visitor-1");
  delays.commitMs = 0;
  assertEquals(await landed(real, 1), ["late-visitor-1"], "the late commit landed");
  const again = await v.join("default", "late-visitor-1");
  assertEquals(again.status, 202, again.text);
  assertEquals([again.json.visitorId, again.json.position], ["late-visitor-1", 1]);
  assertEquals(await rows(real), ["late-visitor-1"], "one place, not two");
  t.close();
});

Deno.test("a join answered 503 whose commit never landed: the retry with its ticket joins under the same id", async () => {
  const real = await Deno.openKv(":memory:");
  let fail = false;
  const kv = delayedKv(real, {
    readMs: 0,
    commitMs: 0,
    // A store that takes no commit for a while (the file locked by another process).
    beforeCommit: () => fail ? Promise.reject(new Error("database is locked")) : Promise.resolve(),
  });
  const t = await makeApp({}, { kv });
  await t.engine.setPaused("default", true);
  const v = served(t);
  fail = true;
  const r = await v.join();
  assertEquals(r.status, 503);
  const id = v.visitorId;
  assertEquals(r.json.error.details.visitorId, id);
  assertEquals(await rows(real), [], "nothing written");
  fail = false;
  const again = await v.join();
  assertEquals(again.status, 202, again.text);
  assertEquals(again.json.visitorId, id, "the same id, one place");
  assertEquals(await rows(real), [id]);
  t.close();
});
