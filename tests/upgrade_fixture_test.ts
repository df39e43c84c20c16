import { TOS_VERSION } from "../lib/admin/tos.ts";
import { FakeClock } from "../lib/clock.ts";
import { keys } from "../lib/store/keys.ts";
import { SCHEMA_VERSION } from "../lib/store/migrate.ts";
import { AdminClient, adminClient, loginAs } from "./admin_helpers.ts";
import { assert, assertEquals } from "./assert.ts";
import { Client, makeApp } from "./helpers.ts";

// A KV file written by release 0.1.0 (schema 1) with its own code: five visitors joined
// (one admitted at once, four waiting), the queue paused, a branding record without the fields
// added later. `fixture.json` holds the secret, the clock and the tickets it handed out.
const DIR = new URL("./fixtures/v0.1.0/", import.meta.url);
const fixture = JSON.parse(await Deno.readTextFile(new URL("fixture.json", DIR))) as {
  secret: string;
  clockMs: number;
  tickets: Record<string, string>;
};

/** A private copy of the fixture store (the committed file is never written). */
async function openCopy(): Promise<{ kv: Deno.Kv; path: string }> {
  const path = await Deno.makeTempFile({ suffix: ".kv" });
  await Deno.copyFile(new URL("store.kv", DIR), path);
  return { kv: await Deno.openKv(path), path };
}

Deno.test("upgrade from the 0.1.0 store: line, tickets, settings kept; then claim and login", async () => {
  const { kv, path } = await openCopy();
  assertEquals((await kv.get(keys.schemaVersion())).value, 1);
  const clock = new FakeClock(fixture.clockMs + 1000);
  const t = await makeApp({ TOKEN_SECRET: fixture.secret }, { kv, clock });
  assertEquals((await kv.get(keys.schemaVersion())).value, SCHEMA_VERSION);
  const m = await t.engine.metrics("default");
  assertEquals([m.waiting, m.paused], [4, true]);
  // Every 0.1.0 ticket still resumes its visitor, in the same order.
  const positions: number[] = [];
  for (const [id, ticket] of Object.entries(fixture.tickets)) {
    const v = new Client(t.app);
    v.cookies.set("tg_ticket", ticket);
    const r = await v.status();
    assertEquals([r.status, r.json.visitorId], [200, id]);
    if (r.json.status === "waiting") positions.push(r.json.position);
  }
  assertEquals(positions, [1, 2, 3, 4]);
  // Branding merged softly: the stored title stays, later fields get defaults.
  const st = await new Client(t.app).req("GET", "/wait");
  assert(st.text.includes("Fixture sale"), "stored branding title survives");
  // 0.1.0 had no admin: the wizard's claim runs once, then never again; login works.
  const boot = await new Client(t.app).req("GET", "/api/admin/bootstrap");
  assertEquals(boot.json.claimed, false);
  const { username, password } = await adminClient(t);
  const again = await new AdminClient(t.app).req("POST", "/api/admin/claim", {
    username: "second",
    password: "another long password",
    acceptedTosVersion: TOS_VERSION,
  }, { authorization: `Bearer ${fixture.secret}` });
  assertEquals(again.status, 409);
  assertEquals(
    (await (await loginAs(t, username, password)).req("GET", "/api/admin/state")).status,
    200,
  );
  kv.close();
  await Deno.remove(path);
});

Deno.test("upgrade from the 0.1.0 store: its never-expiring traffic buckets are pruned", async () => {
  const { kv, path } = await openCopy();
  const before = await Array.fromAsync(kv.list({ prefix: keys.trafficPrefix("default") }));
  assert(before.length > 0, "0.1.0 wrote traffic buckets");
  await makeApp({ TOKEN_SECRET: fixture.secret }, {
    kv,
    clock: new FakeClock(fixture.clockMs + 26 * 3_600_000),
  });
  const after = await Array.fromAsync(kv.list({ prefix: keys.trafficPrefix("default") }));
  assertEquals(after.length, 0);
  kv.close();
  await Deno.remove(path);
});
