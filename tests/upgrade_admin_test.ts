import { TOS_VERSION } from "../lib/admin/tos.ts";
import { FakeClock } from "../lib/clock.ts";
import { keys } from "../lib/store/keys.ts";
import { SCHEMA_VERSION } from "../lib/store/migrate.ts";
import { VERSION } from "../lib/version.ts";
import { AdminClient, adminClient, loginAs } from "./admin_helpers.ts";
import { assert, assertEquals } from "./assert.ts";
import { Client, makeApp } from "./helpers.ts";

const HOUR = 3_600_000;

// The next upgrade after this one: a store with admins, sessions and a line, a schema version
// behind (simulated by lowering it; the real 0.1.0 store is tests/upgrade_fixture_test.ts).
Deno.test("a store one schema behind: migrated, line kept, sessions and login work, claimed stays", async () => {
  const kv = await Deno.openKv(":memory:");
  const clock = new FakeClock();
  const before = await makeApp({}, { kv, clock });
  const { client: oldSession, username, password } = await adminClient(before);
  await before.engine.setPaused("default", true);
  const visitor = new Client(before.app);
  assertEquals((await visitor.join()).status, 202);
  const oldBucket = Math.floor((clock.now() - 30 * HOUR) / 15_000);
  await kv.set(keys.traffic("default", oldBucket, "in"), new Deno.KvU64(7n));
  await kv.set(keys.schemaVersion(), 1);
  clock.advance(60_000);

  const after = await makeApp({}, { kv, clock });
  assertEquals((await kv.get(keys.schemaVersion())).value, SCHEMA_VERSION);
  assert(SCHEMA_VERSION >= 2, "this release has a migration to run");
  assertEquals((await kv.get(keys.traffic("default", oldBucket, "in"))).value, null);
  const health = await after.app.request("/health");
  assertEquals((await health.json()).version, VERSION);
  // The line and the pause survive.
  visitor.app = after.app;
  assertEquals((await visitor.status()).json.status, "waiting");
  assertEquals((await after.engine.metrics("default")).waiting, 1);
  // The setup wizard does not come back: the service stays claimed, a new claim is refused.
  const boot = await new Client(after.app).req("GET", "/api/admin/bootstrap");
  assertEquals([boot.json.claimed, boot.json.version, boot.json.tosVersion], [
    true,
    VERSION,
    TOS_VERSION,
  ]);
  const claim = await new AdminClient(after.app).req("POST", "/api/admin/claim", {
    username: "intruder",
    password: "another long password",
    acceptedTosVersion: TOS_VERSION,
  }, { authorization: `Bearer ${after.config.TOKEN_SECRET}` });
  assertEquals(claim.status, 409);
  // The session from before the upgrade and a fresh login both work.
  oldSession.app = after.app;
  assertEquals((await oldSession.req("GET", "/api/admin/state")).status, 200);
  const fresh = await loginAs(after, username, password);
  assertEquals((await fresh.req("GET", "/api/admin/state")).json.me.username, username);
  kv.close();
});
