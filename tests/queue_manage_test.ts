/**
 * Queues managed from the admin API: create with mode, rate and capacity; a list with live
 * counts; delete (refused while visitors wait unless forced, never the last queue); a deleted
 * name stays taken until its last access token expired; a forced delete of a long line runs in
 * chunks and a crash in the middle is resumed.
 */
import { keys } from "../lib/store/keys.ts";
import { MAX_QUEUES } from "../routes/admin/settings.ts";
import { adminClient } from "./admin_helpers.ts";
import { assert, assertEquals } from "./assert.ts";
import { Client, makeApp } from "./helpers.ts";

const Q = "/api/admin/queues";

/** How many keys a queue still has under its per-queue prefixes. */
async function leftovers(kv: Deno.Kv, q: string): Promise<number> {
  let n = 0;
  for (const prefix of [keys.visitorPrefix(q), keys.fifoPrefix(q), keys.deadlinePrefix(q)]) {
    for await (const _ of kv.list({ prefix })) n++;
  }
  if ((await kv.get(keys.counts(q))).value !== null) n++;
  return n;
}

Deno.test("queues: create with settings, list live counts, delete with the rules", async () => {
  const t = await makeApp({ QUEUES: ["default"], ACCESS_TOKEN_TTL_SECONDS: 900 });
  try {
    const { client: admin } = await adminClient(t);
    let r = await admin.req("POST", Q, {
      name: "presale",
      mode: "lottery",
      admitPerSecond: 2,
      capacity: 40,
    });
    assertEquals(r.status, 200, r.text);
    assertEquals([r.json.mode, r.json.admitPerSecond, r.json.capacity], ["lottery", 2, 40]);
    await t.engine.setPaused("presale", true);
    for (let i = 0; i < 3; i++) await new Client(t.app).join("presale");

    r = await admin.req("GET", Q);
    const row = r.json.queues.find((q: { queue: string }) => q.queue === "presale");
    assertEquals([row.waiting, row.inConfig], [3, false]);
    assertEquals(
      r.json.queues.find((q: { queue: string }) => q.queue === "default").inConfig,
      true,
    );

    // Visitors wait: refused, nothing changes.
    r = await admin.req("DELETE", `${Q}/presale`);
    assertEquals([r.status, r.json.error.details], [409, {
      reason: "visitors_waiting",
      waiting: 3,
    }]);
    assertEquals((await t.engine.metrics("presale")).waiting, 3);
    // Forced: gone at once, its visitors with it.
    r = await admin.req("DELETE", `${Q}/presale?force=1`);
    assertEquals(r.status, 200, r.text);
    assertEquals([r.json.removedWaiting, r.json.inConfig], [3, false]);
    assertEquals(r.json.reusableAt, t.clock.now() + 900_000);
    assertEquals(await leftovers(t.kv, "presale"), 0);
    const join = await new Client(t.app).join("presale");
    assertEquals([join.status, join.json.error.code], [404, "unknown_queue"]);
    r = await admin.req("GET", Q);
    assertEquals(r.json.queues.map((q: { queue: string }) => q.queue), ["default"]);
    assertEquals(r.json.deleted, [{ queue: "presale", reusableAt: t.clock.now() + 900_000 }]);

    // The name is taken until the last access token has expired.
    r = await admin.req("POST", Q, { name: "presale" });
    assertEquals(r.status, 409);
    assert(r.json.error.message.includes("free again"), r.json.error.message);
    t.clock.advance(900_001);
    r = await admin.req("POST", Q, { name: "presale" });
    assertEquals([r.status, r.json.mode], [200, "queue"], r.text);

    // The last queue cannot go; an unknown one is 404.
    await admin.req("DELETE", `${Q}/presale`);
    r = await admin.req("DELETE", `${Q}/default`);
    assertEquals(r.status, 409);
    assert(r.json.error.message.includes("last queue"), r.json.error.message);
    assertEquals((await admin.req("DELETE", `${Q}/nope`)).status, 404);
    // A bad name is a validation error.
    assertEquals((await admin.req("DELETE", `${Q}/Bad%20Name`)).status, 400);
  } finally {
    t.close();
  }
});

Deno.test("queues: a deleted queue named in QUEUES stays away at a restart until its name is free", async () => {
  const path = await Deno.makeTempFile({ suffix: ".kv" });
  const kv1 = await Deno.openKv(path);
  const t = await makeApp({ QUEUES: ["default", "sale"] }, { kv: kv1 });
  const { client: admin } = await adminClient(t);
  const r = await admin.req("DELETE", `${Q}/sale`);
  assertEquals([r.status, r.json.inConfig], [200, true]);
  t.close();
  const kv2 = await Deno.openKv(path);
  const t2 = await makeApp({ QUEUES: ["default", "sale"] }, { kv: kv2, clock: t.clock });
  try {
    assertEquals(await t2.engine.queueNames(), ["default"], "not before its tokens expired");
    t2.clock.advance(t2.config.ACCESS_TOKEN_TTL_SECONDS * 1000 + 1);
    await t2.engine.ensureQueues(t2.config.QUEUES);
    assertEquals(await t2.engine.queueNames(), ["default", "sale"], "back from QUEUES");
  } finally {
    t2.close();
    await Deno.remove(path);
  }
});

Deno.test("queues: a forced delete of a long line runs in chunks and resumes after a crash", async () => {
  const real = await Deno.openKv(":memory:");
  let commitsLeft = Infinity;
  // A store that "crashes" (throws) once a number of commits went through.
  const kv = new Proxy(real, {
    get(target, p) {
      if (p === "atomic") {
        return () => {
          const op = target.atomic();
          const commit = op.commit.bind(op);
          op.commit = () => {
            if (commitsLeft-- <= 0) throw new Error("crash");
            return commit();
          };
          return op;
        };
      }
      const v = Reflect.get(target, p);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  const t = await makeApp({ QUEUES: ["default", "big"], MAX_WAITING_VISITORS: 100000 }, { kv });
  try {
    const { client: admin } = await adminClient(t);
    await t.engine.setPaused("big", true);
    await Promise.all(Array.from({ length: 1200 }, () => t.engine.join("big", null)));
    assertEquals((await t.engine.metrics("big")).waiting, 1200);
    // The queue's removal and two cleanup chunks go through, then the process "dies".
    commitsLeft = 3;
    const r = await admin.req("DELETE", `${Q}/big?force=1`);
    assertEquals(r.status, 500);
    commitsLeft = Infinity;
    assertEquals(await t.engine.queueNames(), ["default"], "gone for visitors at once");
    assert(await leftovers(real, "big") > 0, "the cleanup was cut short");
    // The next look at the queue list finishes it.
    await admin.req("GET", Q);
    assertEquals(await leftovers(real, "big"), 0);
    const tomb = (await real.get<{ cleaning: boolean }>(keys.queueTombstone("big"))).value;
    assertEquals(tomb?.cleaning, false);
  } finally {
    real.close();
  }
});

Deno.test("queues: a forced delete removes its visitors' e-mail addresses with their places", async () => {
  const t = await makeApp({
    QUEUES: ["default", "presale"],
    SMTP_HOST: "127.0.0.1",
    SMTP_PORT: 2525,
    SMTP_TLS: "none",
    SMTP_FROM: "Tollgate <queue@example.test>",
  });
  try {
    const { client: admin } = await adminClient(t);
    await t.engine.setPaused("presale", true);
    const a = new Client(t.app), b = new Client(t.app);
    await a.join("presale");
    await t.engine.sequence("presale"); // one request numbered, one not yet
    await b.join("presale");
    for (const c of [a, b]) {
      const r = await c.req("POST", "/turn-email", { queue: "presale", email: "v@example.com" });
      assertEquals(r.status, 200, r.text);
    }
    const stored = async () => {
      let n = 0;
      for (
        const prefix of [
          keys.mailSubPrefix("presale"),
          keys.mailSubPrePrefix("presale"),
          keys.mailSubOfPrefix("presale"),
        ]
      ) for await (const _ of t.kv.list({ prefix })) n++;
      return n;
    };
    assert(await stored() >= 3, "both requests are stored");
    const r = await admin.req("DELETE", `${Q}/presale?force=1`);
    assertEquals(r.status, 200, r.text);
    // Before, they stayed until their TTL (two days): the mail job walks live queues only.
    assertEquals(await stored(), 0);
  } finally {
    await t.close();
  }
});

Deno.test("queues: the cap of 100 refuses one more, changes nothing, and is documented", async () => {
  const t = await makeApp({ QUEUES: ["default"] });
  try {
    const { client: admin } = await adminClient(t);
    await t.engine.ensureQueues(Array.from({ length: MAX_QUEUES - 1 }, (_, i) => `q${i}`));
    const r = await admin.req("POST", Q, { name: "one-more" });
    assertEquals([r.status, r.json.error.message], [
      400,
      `at most ${MAX_QUEUES} queues; remove one first`,
    ]);
    assertEquals((await admin.req("GET", Q)).json.queues.length, MAX_QUEUES);
    // An existing queue can still be "created" again (its settings set), at the cap.
    const again = await admin.req("POST", Q, { name: "q0", capacity: 7 });
    assertEquals([again.status, again.json.capacity], [200, 7]);
    // An operator learns the cap before meeting it (a sweep found it in neither).
    const rooms = await Deno.readTextFile(new URL("../docs/rooms.md", import.meta.url));
    assert(rooms.includes(`at most ${MAX_QUEUES} queues`), "docs/rooms.md names the cap");
    const contract = await Deno.readTextFile(new URL("../openapi.yaml", import.meta.url));
    assert(contract.includes(`At most ${MAX_QUEUES}`), "openapi.yaml names the cap");
  } finally {
    t.close();
  }
});
