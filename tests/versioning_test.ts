import { createApp } from "../app.ts";
import { FakeClock, seededRandom } from "../lib/clock.ts";
import { testConfig } from "../lib/config.ts";
import { keys } from "../lib/store/keys.ts";
import { migrate, type Migration, MIGRATIONS, SCHEMA_VERSION } from "../lib/store/migrate.ts";
import { VERSION } from "../lib/version.ts";
import { assertEquals } from "./assert.ts";
import { Client, makeApp } from "./helpers.ts";

Deno.test("start writes the schema version; migrations run once each, in order", async () => {
  const kv = await Deno.openKv(":memory:");
  assertEquals(await migrate(kv), SCHEMA_VERSION);
  assertEquals((await kv.get(keys.schemaVersion())).value, SCHEMA_VERSION);
  const ran: number[] = [];
  const next = SCHEMA_VERSION + 1;
  const later: Migration[] = [
    ...MIGRATIONS.map((m) => ({
      ...m,
      run: () => void ran.push(m.to) as unknown as Promise<void>,
    })),
    {
      to: next,
      description: "next",
      run: async (k) => {
        ran.push(next);
        await k.set(["migrated"], true);
      },
    },
  ];
  assertEquals(await migrate(kv, later), next);
  assertEquals(await migrate(kv, later), next);
  assertEquals(ran, [next], "only the new migration runs, and only once");
  assertEquals((await kv.get(["migrated"])).value, true);
  kv.close();
});

Deno.test("stored settings from an older release are merged softly with new defaults", async () => {
  const kv = await Deno.openKv(":memory:");
  // A queue record and branding written before fields were added.
  await kv.set(keys.queue("default"), { name: "default", mode: "lottery", capacity: 7 });
  await kv.set(keys.branding(), { title: "Drop day", showWaitingCount: true });
  const t = await makeApp({}, { kv });
  const m = await t.engine.metrics("default");
  assertEquals([m.admissionMode, m.capacity, m.paused, m.opensAt], ["lottery", 7, false, null]);
  assertEquals(m.admitPerSecond, t.config.ADMIT_PER_SECOND);
  const b = await t.engine.ctx.branding("");
  assertEquals([b.title, b.showWaitingCount, b.admitHoldSeconds], ["Drop day", true, 60]);
  t.close();
});

Deno.test("a restart over the same store keeps queue state, settings and the secret's tokens", async () => {
  const path = await Deno.makeTempFile({ suffix: ".kv" });
  const clock = new FakeClock();
  const config = testConfig({ ADMIT_PER_SECOND: 1 });
  const boot = async () => {
    const kv = await Deno.openKv(path);
    const { app, services } = await createApp({
      kv,
      clock,
      config,
      fetch: globalThis.fetch,
      random: seededRandom(3),
    });
    return { app, services, kv };
  };
  const first = await boot();
  await first.services.engine.setCapacity("default", 3);
  const a = new Client(first.app), b = new Client(first.app);
  await a.join();
  const wb = await b.join();
  assertEquals(wb.status, 202);
  first.kv.close();

  const second = await boot();
  b.app = second.app;
  const sb = await b.status();
  assertEquals([sb.status, sb.json.position], [200, 1]);
  const m = await second.services.engine.metrics("default");
  assertEquals([m.capacity, m.waiting, m.entered], [3, 1, 1]);
  const health = await (await second.app.request("/health")).json();
  assertEquals(health.version, VERSION);
  second.kv.close();
  await Deno.remove(path);
});
