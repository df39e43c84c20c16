import { DatabaseSync } from "node:sqlite";
import { FakeClock } from "../lib/clock.ts";
import { keys } from "../lib/store/keys.ts";
import { SCHEMA_VERSION } from "../lib/store/migrate.ts";
import { VERSION } from "../lib/version.ts";
import { AdminClient, loginAs } from "./admin_helpers.ts";
import { assert, assertEquals } from "./assert.ts";
import { Client, makeApp } from "./helpers.ts";

// A KV file written by release 0.2.0 through its own HTTP API (tests/fixtures/v0.2.0/
// make_fixture.ts, run from that release's checkout): two admins (one by invite), a live owner
// session, branding, signed webhooks, capacity 2 at 1/s with a 5000 cap on `default` (2 admitted,
// 4 waiting), and `vip` in lottery mode, paused, opening tomorrow, with 3 waiting.
const DIR = new URL("./fixtures/v0.2.0/", import.meta.url);
const fixture = JSON.parse(await Deno.readTextFile(new URL("fixture.json", DIR))) as {
  secret: string;
  clockMs: number;
  owner: { username: string; password: string; phrase: string };
  ownerSession: string;
  second: { username: string; password: string };
  tickets: Record<string, { queue: string; ticket: string; status: string }>;
};

/**
 * Deno KV runs `expireIn` on the real clock: 0.2.0 wrote the owner's session with 12 h of it (a
 * cleanup backstop; the service checks idle and absolute lifetimes itself, on the injected clock),
 * so days after the fixture was made KV would hide the record. The copy lifts those backstops in
 * the SQLite file (records untouched), as if the upgrade ran right after 0.2.0 wrote them.
 */
function liftRealClockExpiry(path: string) {
  const db = new DatabaseSync(path);
  try {
    db.exec("UPDATE kv SET expiration_ms = -1 WHERE expiration_ms >= 0");
  } finally {
    db.close();
  }
}

async function upgraded() {
  const path = await Deno.makeTempFile({ suffix: ".kv" });
  await Deno.copyFile(new URL("store.kv", DIR), path);
  liftRealClockExpiry(path);
  const kv = await Deno.openKv(path);
  const before = (await kv.get(keys.schemaVersion())).value;
  const clock = new FakeClock(fixture.clockMs + 1000);
  const t = await makeApp({ TOKEN_SECRET: fixture.secret, QUEUES: ["default"] }, { kv, clock });
  return { t, before, cleanup: () => Deno.remove(path).catch(() => {}) };
}

Deno.test("upgrade from the 0.2.0 store: queues, settings, admins and sessions survive", async () => {
  const { t, before, cleanup } = await upgraded();
  try {
    assertEquals(before, 2, "the fixture is a schema-2 store");
    assertEquals((await t.kv.get(keys.schemaVersion())).value, SCHEMA_VERSION);
    const health = await new Client(t.app).req("GET", "/health");
    assertEquals([health.status, health.json.version], [200, VERSION]);

    // the wizard does not reappear; the old session still works; both admins log in.
    const boot = await new Client(t.app).req("GET", "/api/admin/bootstrap");
    assertEquals(boot.json.claimed, true);
    const owner = new AdminClient(t.app);
    owner.cookies.set("tg_admin", fixture.ownerSession);
    const state = await owner.req("GET", "/api/admin/state");
    assertEquals(state.status, 200, state.text);
    assertEquals(state.json.me.username, fixture.owner.username);
    assertEquals(state.json.branding.title, "Fixture 0.2.0 sale");
    assertEquals(state.json.branding.primaryColor, "#0a7d4f");
    assertEquals(
      [state.json.webhooks.url, state.json.webhooks.hasSecret, state.json.webhooks.depthThreshold],
      ["https://hooks.example/tollgate", true, 50],
    );
    assert(!state.json.webhooks.secretUnreadable, "the sealed webhook secret still opens");
    for (const who of [fixture.owner, fixture.second]) {
      const c = await loginAs(t, who.username, who.password);
      assertEquals((await c.req("GET", "/api/admin/users")).json.users.length, 2);
    }

    // Queue settings kept, `vip` included although QUEUES no longer names it.
    const d = await t.engine.metrics("default");
    assertEquals([d.capacity, d.admitPerSecond, d.waiting, d.entered], [2, 1, 4, 2]);
    const limits = await owner.req("GET", "/api/admin/queue-limits");
    assertEquals(limits.json.maxWaitingVisitors, 5000);
    const v = await t.engine.metrics("vip");
    assertEquals([v.admissionMode, v.paused, v.waiting], ["lottery", true, 3]);
    assertEquals(v.opensAt, fixture.clockMs - 9000 + 86_400_000);

    // Every ticket resumes its visitor: admitted stay admitted, the line keeps its order.
    const positions: number[] = [];
    for (const [id, f] of Object.entries(fixture.tickets)) {
      const c = new Client(t.app);
      c.cookies.set("tg_ticket", f.ticket);
      const r = await c.status(f.queue);
      assertEquals([r.status, r.json.visitorId, r.json.status], [200, id, f.status], id);
      if (f.queue === "default" && r.json.status === "waiting") positions.push(r.json.position);
    }
    assertEquals(positions, [1, 2, 3, 4]);

    // The recovery phrase from 0.2.0 still recovers the owner.
    const rec = await new AdminClient(t.app).req("POST", "/api/admin/password/recover", {
      username: fixture.owner.username,
      recoveryPhrase: fixture.owner.phrase,
      newPassword: "a brand new password",
      confirmPassword: "a brand new password",
    });
    assertEquals(rec.status, 200, rec.text);
  } finally {
    t.close();
    await cleanup();
  }
});
