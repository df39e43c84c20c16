/**
 * The shadow line (issue 35, part 3): with the bot check on, a client that fails it or floods far
 * past its per-client limit gets a place that looks real but never admits, and nothing of it is
 * stored or counted in the real line.
 */
import type { PowChallenge } from "../lib/challenge/pow.ts";
import { PowHasher } from "../lib/challenge/pow_hash.ts";
import { writeJoinGuards } from "../lib/guard/settings.ts";
import { isShadowId } from "../lib/guard/shadow.ts";
import { keys } from "../lib/store/keys.ts";
import { assert, assertEquals } from "./assert.ts";
import { makeApp, type TestApp } from "./helpers.ts";

function req(t: TestApp, method: string, path: string, body?: unknown, cookie?: string, ip = "1") {
  return t.fetch(
    new Request(`http://tollgate.test${path}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...(cookie ? { cookie } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    {
      remoteAddr: { transport: "tcp", hostname: `203.0.113.${ip}`, port: 1 },
    } as Deno.ServeHandlerInfo,
  );
}

async function rows(t: TestApp) {
  let n = 0;
  for await (const _ of t.kv.list({ prefix: keys.visitorPrefix("default") })) n++;
  return n;
}

/** A wrong solution to a fresh challenge (from address `ip`). */
async function wrongProof(t: TestApp, ip: string) {
  const r = await req(t, "POST", "/join", { queue: "default" }, undefined, ip);
  const ch: PowChallenge = (await r.json()).error.details.challenge;
  const h = new PowHasher(ch.seed);
  let bad = 0;
  while (h.solves(String(bad), ch.threshold)) bad++;
  return { challenge: ch.challenge, nonce: String(bad) };
}

const ticketOf = (r: Response) => r.headers.get("set-cookie")!.split(";")[0];

Deno.test("a wrong solution with the shadow line on: a real-looking place, nothing stored, never admitted", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 100, CAPACITY: 100 });
  try {
    await t.engine.setPaused("default", true);
    // Three real waiters joined before the bot check went on.
    for (let i = 0; i < 3; i++) {
      assertEquals(
        (await req(t, "POST", "/join", { queue: "default" }, undefined, `${i + 10}`)).status,
        202,
      );
    }
    await writeJoinGuards(t.kv, "default", { challenge: "on", difficulty: 5000, shadowLine: true });
    t.engine.ctx.invalidate("default");
    const r = await req(
      t,
      "POST",
      "/join",
      { queue: "default", proof: await wrongProof(t, "66") },
      undefined,
      "66",
    );
    const body = await r.json();
    assertEquals([r.status, body.status], [202, "waiting"], JSON.stringify(body));
    assert(body.position >= 4, `a place behind the real line: ${body.position}`);
    assert(isShadowId(t.services.signer, body.visitorId));
    assertEquals(body.visitorId.length, 31, "shaped like every visitor id");
    const cookie = ticketOf(r);
    assertEquals(await rows(t), 3, "nothing stored");
    const m = await t.engine.metrics("default");
    assertEquals(m.waiting, 3, "not in the real line");
    assertEquals(m.joinGuards.shadowPlaced, 1);
    // The line runs and empties with room to spare: the shadow visitor never gets in.
    await t.engine.setPaused("default", false);
    for (let i = 0; i < 5; i++) {
      t.clock.advance(1000);
      await t.engine.tick("default");
    }
    assertEquals((await t.engine.metrics("default")).waiting, 0);
    t.clock.advance(60_000);
    const s = await req(t, "GET", "/status?queue=default", undefined, cookie);
    const sb = await s.json();
    assertEquals([s.status, sb.status], [200, "waiting"]);
    assert(sb.position >= 2, `never at the front: ${sb.position}`);
    assert(sb.estimatedWaitSeconds >= 0);
    const again = await req(t, "POST", "/join", { queue: "default" }, ticketOf(s), "66");
    const ab = await again.json();
    assertEquals([again.status, ab.status, ab.visitorId], [202, "waiting", body.visitorId]);
    const enter = await req(
      t,
      "POST",
      "/enter",
      { queue: "default", visitorId: body.visitorId },
      cookie,
    );
    assertEquals([enter.status, (await enter.json()).error.code], [409, "not_admitted"]);
    const beat = await req(
      t,
      "POST",
      "/heartbeat",
      { queue: "default", visitorId: body.visitorId },
      cookie,
    );
    assertEquals(beat.status, 200);
    assertEquals(await rows(t), 3, "the three real visitors' records only");
    const own = await t.kv.get(keys.visitor("default", body.visitorId));
    assertEquals(own.versionstamp, null, "nothing of the shadow visitor stored");
  } finally {
    await t.services.guards.stats.idle();
    t.close();
  }
});

Deno.test("a wrong solution with the shadow line off is refused as before", async () => {
  const t = await makeApp();
  try {
    await writeJoinGuards(t.kv, "default", { challenge: "on", difficulty: 5000 });
    const r = await req(
      t,
      "POST",
      "/join",
      { queue: "default", proof: await wrongProof(t, "7") },
      undefined,
      "7",
    );
    assertEquals([r.status, (await r.json()).error.code], [403, "challenge_failed"]);
  } finally {
    await t.services.guards.stats.idle();
    t.close();
  }
});

Deno.test("a client far past its per-client limit lands in the shadow line, not a 429", async () => {
  const t = await makeApp({ JOINS_PER_CLIENT_PER_MINUTE: 2 });
  try {
    await t.engine.setPaused("default", true);
    await writeJoinGuards(t.kv, "default", {
      challenge: "on",
      difficulty: 1000,
      shadowLine: true,
      shadowOverLimitFactor: 3,
    });
    t.engine.ctx.invalidate("default");
    const codes: number[] = [];
    const shadows: boolean[] = [];
    for (let i = 0; i < 8; i++) {
      const ch = await req(t, "POST", "/join", { queue: "default" }, undefined, "9");
      const c: PowChallenge = (await ch.json()).error.details.challenge;
      const nonce = String(new PowHasher(c.seed).search(c.threshold, 0, 1e9));
      const r = await req(
        t,
        "POST",
        "/join",
        { queue: "default", proof: { challenge: c.challenge, nonce } },
        undefined,
        "9",
      );
      const b = await r.json();
      codes.push(r.status);
      shadows.push(r.status === 202 && isShadowId(t.services.signer, b.visitorId));
    }
    // Two real places, then 429s, then shadow places from three times the limit on.
    assertEquals(codes.slice(0, 2), [202, 202]);
    assertEquals(shadows.slice(0, 2), [false, false]);
    assertEquals(codes.slice(2, 5), [429, 429, 429]);
    assertEquals(shadows.slice(5), [true, true, true], `codes ${codes}`);
    assertEquals(await rows(t), 2, "only the two real places stored");
  } finally {
    await t.services.guards.stats.idle();
    t.close();
  }
});

Deno.test("PUT /api/admin/join-guards takes the shadow line fields and refuses a bad factor unchanged", async () => {
  const { adminClient } = await import("./admin_helpers.ts");
  const t = await makeApp();
  try {
    const admin = (await adminClient(t)).client;
    const bad = await admin.req("PUT", "/api/admin/join-guards", { shadowOverLimitFactor: 101 });
    assertEquals(bad.status, 400);
    const ok = await admin.req("PUT", "/api/admin/join-guards", {
      shadowLine: true,
      shadowOverLimitFactor: 5,
    });
    assertEquals(ok.status, 200, ok.text);
    assertEquals([ok.json.shadowLine, ok.json.shadowOverLimitFactor], [true, 5]);
    assertEquals((await t.engine.settings("default")).joinGuards.shadowLine, true);
  } finally {
    await t.services.guards.stats.idle();
    t.close();
  }
});
