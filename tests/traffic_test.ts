import { TRAFFIC_BUCKET_MS } from "../lib/traffic.ts";
import { keys } from "../lib/store/keys.ts";
import { pruneTraffic, readTraffic, trafficCsv } from "../lib/traffic.ts";
import { adminClient } from "./admin_helpers.ts";
import { assert, assertEquals } from "./assert.ts";
import { Client, makeApp, type TestApp } from "./helpers.ts";

const HOUR = 3600_000;

/**
 * Through the engine: 4 joins while paused (waiting), all force-admitted a bucket later, then
 * two buckets on one join that is admitted at once (counts in and out). Returns the buckets.
 */
async function drive(t: TestApp) {
  const b0 = t.clock.now();
  await t.engine.setPaused("default", true);
  for (let i = 0; i < 4; i++) assertEquals((await new Client(t.app).join()).status, 202);
  t.clock.advance(TRAFFIC_BUCKET_MS);
  const b1 = t.clock.now();
  await t.engine.setPaused("default", false);
  assertEquals(await t.engine.admit("default", 4), 4);
  t.clock.advance(2 * TRAFFIC_BUCKET_MS + 3000);
  const b3 = t.clock.now() - 3000;
  assertEquals((await new Client(t.app).join()).status, 200);
  t.clock.advance(1000);
  return { b0, b1, b3 };
}

Deno.test("traffic: engine joins and admissions read back per 15 s bucket, zeros filled", async () => {
  const t = await makeApp();
  try {
    const { b0, b1, b3 } = await drive(t);
    const rows = await readTraffic(t.kv, "default", t.clock.now(), 2 * 60_000);
    assertEquals(rows.length, 8);
    assertEquals(rows[rows.length - 1].at, b3, "the current bucket comes last");
    for (let i = 1; i < rows.length; i++) assertEquals(rows[i].at - rows[i - 1].at, 15_000);
    const at = (ms: number) => rows.find((r) => r.at === ms);
    assertEquals(at(b0), { at: b0, inflow: 4, outflow: 0 });
    assertEquals(at(b1), { at: b1, inflow: 0, outflow: 4 });
    assertEquals(at(b1 + 15_000), { at: b1 + 15_000, inflow: 0, outflow: 0 });
    assertEquals(at(b3), { at: b3, inflow: 1, outflow: 1 });
    const total = rows.reduce((a, r) => [a[0] + r.inflow, a[1] + r.outflow], [0, 0]);
    assertEquals(total, [5, 5]);
    // Another queue's counters stay out.
    assertEquals(
      (await readTraffic(t.kv, "other", t.clock.now(), 60_000)).every((r) =>
        r.inflow === 0 && r.outflow === 0
      ),
      true,
    );
    assertEquals((await readTraffic(t.kv, "default", t.clock.now())).length, 24 * 240);
  } finally {
    t.close();
  }
});

Deno.test("traffic: CSV has a header, one line per bucket, ISO times", () => {
  const at = Date.UTC(2026, 0, 1);
  assertEquals(
    trafficCsv([{ at, inflow: 3, outflow: 1 }, { at: at + 15_000, inflow: 0, outflow: 2 }]),
    "at,iso,inflow,outflow\n" +
      `${at},2026-01-01T00:00:00.000Z,3,1\n` +
      `${at + 15_000},2026-01-01T00:00:15.000Z,0,2\n`,
  );
  assertEquals(trafficCsv([]), "at,iso,inflow,outflow\n");
});

Deno.test("traffic: pruning removes buckets older than ~25 h and keeps the rest", async () => {
  const t = await makeApp();
  try {
    await drive(t);
    const count = async () => {
      let n = 0;
      for await (const _ of t.kv.list({ prefix: keys.trafficPrefix("default") })) n++;
      return n;
    };
    const before = await count();
    assert(before >= 4, `expected counters, found ${before}`);
    assertEquals(await pruneTraffic(t.kv, "default", t.clock.now() + 24 * HOUR), 0);
    assertEquals(await count(), before);
    t.clock.advance(26 * HOUR);
    assertEquals((await new Client(t.app).join()).status, 200);
    assertEquals(await pruneTraffic(t.kv, "default", t.clock.now()), before);
    assertEquals(await count(), 2, "the fresh bucket (in + out) stays");
  } finally {
    t.close();
  }
});

Deno.test("traffic route: JSON and CSV behind the admin session", async () => {
  const t = await makeApp();
  try {
    assertEquals((await new Client(t.app).req("GET", "/api/admin/traffic")).status, 401);
    const { client } = await adminClient(t);
    const { b0, b3 } = await drive(t);
    const json = await client.req("GET", "/api/admin/traffic?hours=1");
    assertEquals(json.status, 200);
    assertEquals([json.json.queue, json.json.bucketSeconds, json.json.buckets.length], [
      "default",
      15,
      240,
    ]);
    // deno-lint-ignore no-explicit-any
    const find = (ms: number) => json.json.buckets.find((r: any) => r.at === ms);
    assertEquals(find(b0), { at: b0, inflow: 4, outflow: 0 });
    assertEquals(find(b3), { at: b3, inflow: 1, outflow: 1 });
    assertEquals((await client.req("GET", "/api/admin/traffic")).json.buckets.length, 5760);

    const csv = await client.req("GET", "/api/admin/traffic?format=csv&hours=1&queue=default");
    assertEquals(csv.status, 200);
    assert(csv.headers.get("content-type")?.startsWith("text/csv"), "csv content-type");
    assertEquals(
      csv.headers.get("content-disposition"),
      'attachment; filename="traffic-default.csv"',
    );
    const lines = csv.text.trimEnd().split("\n");
    assertEquals(lines.length, 241);
    assertEquals(lines[0], "at,iso,inflow,outflow");
    assert(lines.includes(`${b0},${new Date(b0).toISOString()},4,0`), "b0 line");

    for (const bad of ["hours=0", "hours=25", "hours=x", "format=xml", "queue=Bad!"]) {
      const r = await client.req("GET", `/api/admin/traffic?${bad}`);
      assertEquals([r.status, r.json?.error?.code], [400, "bad_request"], bad);
    }
    const unknown = await client.req("GET", "/api/admin/traffic?queue=nope");
    assertEquals([unknown.status, unknown.json.error.code], [404, "unknown_queue"]);
  } finally {
    t.close();
  }
});

Deno.test("traffic: the tick prunes old buckets once a minute, without a direct call", async () => {
  const t = await makeApp();
  const bucket = (msAgo: number) => Math.floor((t.clock.now() - msAgo) / TRAFFIC_BUCKET_MS);
  const old = bucket(26 * 3600_000), recent = bucket(3600_000);
  await t.kv.set(keys.traffic("default", old, "in"), new Deno.KvU64(5n));
  await t.kv.set(keys.traffic("default", recent, "in"), new Deno.KvU64(6n));
  assert((await t.engine.tick("default")).ran, "the tick ran");
  assertEquals((await t.kv.get(keys.traffic("default", old, "in"))).value, null);
  assert((await t.kv.get(keys.traffic("default", recent, "in"))).value !== null, "recent kept");
  // Within the same minute the upkeep does not run again: a planted old bucket stays...
  await t.kv.set(keys.traffic("default", old, "in"), new Deno.KvU64(5n));
  t.clock.advance(1000);
  assert((await t.engine.tick("default")).ran);
  assert((await t.kv.get(keys.traffic("default", old, "in"))).value !== null, "once a minute");
  // ...and the next minute's first tick sweeps it (an idle second's too: no tick runs, the upkeep
  // does).
  t.clock.advance(60_000);
  await t.engine.tick("default");
  assertEquals((await t.kv.get(keys.traffic("default", old, "in"))).value, null);
  t.close();
});
