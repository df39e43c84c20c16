import { diagnose, repairCounters } from "../lib/queue/doctor.ts";
import { keys } from "../lib/store/keys.ts";
import type { Counts } from "../lib/queue/types.ts";
import { assert, assertEquals } from "./assert.ts";
import { Client, makeApp } from "./helpers.ts";

const ROOT = new URL("..", import.meta.url).pathname;

/** A queue with 2 entered visitors and 3 waiting (capacity 2). */
async function lineOf(kv?: Deno.Kv) {
  const t = await makeApp({ CAPACITY: 2, ADMIT_PER_SECOND: 100 }, { kv });
  for (let i = 0; i < 5; i++) await new Client(t.app).join("default", `doctor-visitor-${i}`);
  await t.engine.tick("default");
  return t;
}

Deno.test("doctor: a consistent queue is healthy and repair writes nothing", async () => {
  const t = await lineOf();
  const d = await diagnose(t.kv, "default");
  assertEquals(d.recounted, { waiting: 3, holding: 0, entered: 2, nextSeq: 6 });
  assertEquals([d.healthy, d.counterDiffs, d.indexProblems], [true, [], []]);
  const before = await t.kv.get(keys.counts("default"));
  const r = await repairCounters(t.kv, "default");
  assertEquals(r.repaired, false);
  assertEquals((await t.kv.get(keys.counts("default"))).versionstamp, before.versionstamp);
  t.close();
});

Deno.test("doctor: drifted counters are reported, repaired, and the queue works on", async () => {
  const t = await lineOf();
  const c = (await t.kv.get<Counts>(keys.counts("default"))).value!;
  await t.kv.set(keys.counts("default"), { ...c, waiting: 40, entered: 0, nextSeq: 3 });
  const d = await diagnose(t.kv, "default");
  assertEquals(d.counterDiffs, ["waiting", "entered", "nextSeq"]);
  assertEquals(d.stored.waiting, 40);
  assertEquals(d.healthy, false);
  const r = await repairCounters(t.kv, "default");
  assertEquals(r.repaired, true);
  const after = (await t.kv.get<Counts>(keys.counts("default"))).value!;
  assertEquals([after.waiting, after.entered, after.nextSeq], [3, 2, 6]);
  assertEquals(after.admitted, c.admitted, "historical totals are kept");
  assert((await diagnose(t.kv, "default")).healthy);
  // The next arrival gets a fresh number, behind the three already waiting.
  t.engine.ctx.invalidate("default");
  const late = await new Client(t.app).join("default", "doctor-visitor-late");
  assertEquals([late.status, late.json.position], [202, 4]);
  t.close();
});

Deno.test("doctor: index entries without their visitor (and the reverse) are reported", async () => {
  const t = await lineOf();
  const fifo = [];
  for await (const e of t.kv.list({ prefix: keys.fifoPrefix("default") })) fifo.push(e);
  await t.kv.delete(fifo[0].key);
  await t.kv.set(keys.fifo("default", 99), "nobody-at-all");
  const d = await diagnose(t.kv, "default");
  assertEquals(
    d.indexProblems.sort(),
    [
      `line entry for nobody-at-all, who is not waiting`,
      `waiting visitor ${fifo[0].value} has no line entry`,
    ].sort(),
  );
  t.close();
});

Deno.test("doctor: `deno task doctor` reports, repairs with --repair, and exits accordingly", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/store.kv`;
  const kv = await Deno.openKv(path);
  await lineOf(kv);
  const c = (await kv.get<Counts>(keys.counts("default"))).value!;
  await kv.set(keys.counts("default"), { ...c, holding: 7 });
  kv.close();
  const run = async (...args: string[]) => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "scripts/doctor.ts", ...args],
      cwd: ROOT,
      env: { DENO_KV_PATH: path, NO_COLOR: "1" },
    }).output();
    return { code: out.code, text: new TextDecoder().decode(out.stdout) };
  };
  let r = await run("--queue", "default");
  assertEquals(r.code, 1, r.text);
  assert(r.text.includes("holding: stored 7, recounted 0 (differs)"), r.text);
  r = await run("--repair");
  assertEquals(r.code, 0, r.text);
  assert(r.text.includes("holding: stored 7, recounted 0 (repaired)"), r.text);
  r = await run();
  assertEquals(r.code, 0, r.text);
  assert(r.text.includes("healthy"), r.text);
  assertEquals((await run("--queue", "nope")).code, 2);
  await Deno.remove(dir, { recursive: true });
});
