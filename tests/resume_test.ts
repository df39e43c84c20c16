/**
 * Moving a place to another device: a code moves it (by the API, as the page and the e-mail link
 * do), the old browser is told at its next due check-in and can neither use nor free the place,
 * nor take it back without a code; bad, reused, foreign and ended codes change nothing; guesses
 * are limited per address and per queue; enqueue tokens and the pre-queue keep working.
 */
import { EnqueueTokens } from "../lib/guard/enqueue.ts";
import { writeJoinGuards } from "../lib/guard/settings.ts";
import { keys } from "../lib/store/keys.ts";
import { aroundReads } from "../testing/around_reads.ts";
import { FakeClock } from "../lib/clock.ts";
import { assert, assertEquals } from "./assert.ts";
import { Client, commitCounter, makeApp, type TestApp } from "./helpers.ts";

const Q = "default";

/** An app whose default queue is paused, so everyone who joins waits. */
async function pausedApp(overrides = {}, opts = {}) {
  const t = await makeApp({ CLIENT_IP_HEADER: "x-client-ip", ...overrides }, opts);
  await t.engine.setPaused(Q, true);
  return t;
}

/** A code for the place `c` holds. */
async function codeOf(c: Client): Promise<{ code: string; link: string }> {
  const r = await c.req("POST", "/resume/code", { queue: Q });
  assertEquals(r.status, 200, r.text);
  return r.json;
}

/**
 * Numbers the line (the tick's sequencer) and gives each client its numbered ticket: a join's
 * ticket is unnumbered until then, and its statuses read the store (the 0.8 contract).
 */
async function numbered(t: TestApp, ...cs: Client[]) {
  await t.engine.sequence(Q);
  for (const c of cs) assertEquals((await c.status()).status, 200);
}

/** Moves the clock past `c`'s next check-in, so its next status is due. */
function due(t: TestApp, c: Client) {
  const nca = (c.ticketClaims as unknown as { nca: number }).nca;
  if (t.clock.now() <= nca) t.clock.advance(nca - t.clock.now() + 1);
}

Deno.test("a code moves the place; the old browser is told at its next due check-in", async () => {
  const t = await pausedApp();
  try {
    const a = new Client(t.app), b = new Client(t.app);
    await new Client(t.app).join(); // one ahead
    const joined = await a.join();
    assertEquals([joined.status, joined.json.position], [202, 2]);
    await numbered(t, a);
    const { code, link } = await codeOf(a);
    assert(/^[2-9A-HJ-NP-Z]{4}-[2-9A-HJ-NP-Z]{4}$/.test(code), code);
    assert(link.endsWith(`/wait?queue=${Q}&resume=${code.replace("-", "")}`), link);

    const moved = await b.req("POST", "/resume", { queue: Q, code: code.toLowerCase() });
    assertEquals(moved.status, 200, moved.text);
    assertEquals([moved.json.visitorId, moved.json.position], [joined.json.visitorId, 2]);
    assertEquals((b.ticketClaims as unknown as { hg: number }).hg, 1);

    // Not due: A is answered from memory as before; due: told its place moved. A page that
    // shows a code asks /resume/held (one read) and learns it at once.
    assertEquals((await a.status()).status, 200);
    const held = await a.req("GET", `/resume/held?queue=${Q}`);
    assertEquals([held.status, held.json.error.code], [409, "place_moved"]);
    assertEquals((await b.req("GET", `/resume/held?queue=${Q}`)).json, { queue: Q, held: true });
    due(t, a);
    const told = await a.status();
    assertEquals([told.status, told.json.error.code], [409, "place_moved"]);
    // It can neither free the place nor take it back by joining with its ticket.
    const left = await a.req("POST", "/leave", { queue: Q, visitorId: joined.json.visitorId });
    assertEquals(left.status, 409);
    assertEquals((await a.join()).status, 409);
    assert(await t.engine.visitor(Q, joined.json.visitorId), "the place is still there");

    // B's due check-ins keep its holder generation in the fresh ticket.
    due(t, b);
    const st = await b.status();
    assertEquals([st.status, st.json.position], [200, 2]);
    assertEquals((b.ticketClaims as unknown as { hg: number }).hg, 1);

    // A used code does not work again; A takes the place back only with a code from B.
    const again = await new Client(t.app).req("POST", "/resume", { queue: Q, code });
    assertEquals([again.status, again.json.error.code], [404, "resume_code_invalid"]);
    assertEquals(again.json.error.details.reason, "unknown");
    const back = await codeOf(b);
    a.cookies.delete("tg_ticket");
    assertEquals((await a.req("POST", "/resume", { queue: Q, code: back.code })).status, 200);
    due(t, b);
    assertEquals((await b.status()).json.error.code, "place_moved");

    // At its turn the access token goes to the holder (A), never to B.
    await t.engine.setPaused(Q, false);
    await t.engine.admit(Q, 2);
    due(t, a);
    const turn = await a.status();
    assertEquals([turn.json.status, typeof turn.json.accessToken], ["admitted", "string"]);
    assert(a.cookies.has("tg_access"));
    const denied = await b.status();
    assertEquals(denied.status, 409);
    assert(!b.cookies.has("tg_access"));
    // An entered place cannot be moved any more: no code is made for it.
    const late = await a.req("POST", "/resume/code", { queue: Q });
    assertEquals([late.status, late.json.error.details.reason], [404, "place_ended"]);
  } finally {
    t.close();
  }
});

Deno.test("a status that is not due reads no holder record", async () => {
  const kv = await Deno.openKv(":memory:");
  const holderReads: string[] = [];
  const counted = aroundReads(kv, (key, read) => {
    if (key[0] === "resumeHolder") holderReads.push(String(key[2]));
    return read();
  });
  const t = await pausedApp({}, { kv: counted, clock: new FakeClock() });
  try {
    const a = new Client(t.app);
    await a.join();
    await numbered(t, a);
    await codeOf(a); // the holder record exists now
    holderReads.length = 0;
    for (let i = 0; i < 5; i++) assertEquals((await a.status()).status, 200);
    assertEquals(holderReads.length, 0, "not due: memory only");
    due(t, a);
    await a.status();
    assertEquals(holderReads.length, 1, "a due check-in reads it once");
  } finally {
    t.close();
  }
});

Deno.test("bad codes change nothing and get clear errors; guesses are limited", async () => {
  const t = await pausedApp();
  try {
    await t.engine.ensureQueues(["other"]);
    await t.engine.setPaused("other", true);
    const a = new Client(t.app);
    await a.join();
    const { code } = await codeOf(a);
    const guest = new Client(t.app);
    const malformed = await guest.req("POST", "/resume", { queue: Q, code: "O0I1-ABCD" });
    assertEquals([malformed.status, malformed.json.error.details.fields[0].path], [400, "code"]);
    const foreign = await guest.req("POST", "/resume", { queue: "other", code });
    assertEquals([foreign.status, foreign.json.error.details.reason], [404, "other_queue"]);
    const unknownQueue = await guest.req("POST", "/resume", { queue: "nope", code });
    assertEquals(unknownQueue.json.error.code, "unknown_queue");
    // Ended: the visitor left (its own browser may).
    const b = new Client(t.app);
    await b.join();
    const bCode = (await codeOf(b)).code;
    await b.req("POST", "/leave", { queue: Q, visitorId: b.visitorId });
    const ended = await guest.req("POST", "/resume", { queue: Q, code: bCode });
    assertEquals(ended.json.error.details.reason, "place_ended");
    // A new code (at most one every 3 s) voids the one before it.
    assertEquals((await a.req("POST", "/resume/code", { queue: Q })).status, 429);
    t.clock.advance(3000);
    const newer = await codeOf(a);
    assertEquals((await guest.req("POST", "/resume", { queue: Q, code })).status, 404);
    // Nothing moved: A still holds its place and its code still works after all this.
    assertEquals((await a.status()).status, 200);
    assertEquals(guest.cookies.has("tg_ticket"), false);

    // Per address: 10 wrong codes in 10 minutes, then 429 even for a right one.
    const flood = new Client(t.app);
    const from = { "x-client-ip": "198.51.100.7" };
    let last = 0;
    for (let i = 0; i < 12; i++) {
      last = (await flood.req("POST", "/resume", { queue: Q, code: "2222-2222" }, from)).status;
    }
    assertEquals(last, 429);
    const right = await flood.req("POST", "/resume", { queue: Q, code: newer.code }, from);
    assertEquals(right.status, 429);
    assert(Number(right.headers.get("retry-after")) > 0);
    // Another address still gets through (the queue's budget is not spent).
    const ok = await new Client(t.app).req("POST", "/resume", { queue: Q, code: newer.code }, {
      "x-client-ip": "198.51.100.8",
    });
    assertEquals(ok.status, 200, ok.text);
  } finally {
    t.close();
  }
});

Deno.test("the queue's budget bounds guesses from many addresses: then each try costs a proof of work", async () => {
  const t = await pausedApp();
  try {
    let last = "";
    for (let i = 0; i < 125; i++) {
      const r = await new Client(t.app).req("POST", "/resume", { queue: Q, code: "2222-2223" }, {
        "x-client-ip": `10.0.${i >> 8}.${i & 255}`,
      });
      last = r.json.error.code;
    }
    // Not a 429 for everyone in the queue (tests/resume_proof_test.ts): a challenge to solve.
    assertEquals(last, "challenge_required");
  } finally {
    t.close();
  }
});

Deno.test("a place held by an enqueue key moves, and the key's old browser is refused", async () => {
  const ENQUEUE_SECRET = "enqueue-secret-enqueue-secret-0123456789";
  const t = await pausedApp({ ENQUEUE_SECRET });
  try {
    await writeJoinGuards(t.kv, Q, { requireEnqueueToken: true });
    const token = new EnqueueTokens(ENQUEUE_SECRET).sign({
      queue: Q,
      key: "dave",
      exp: Math.floor(t.clock.now() / 1000) + 600,
    });
    const a = new Client(t.app), b = new Client(t.app);
    const joined = await a.req("POST", "/join", { queue: Q, enqueueToken: token });
    assertEquals(joined.status, 202, joined.text);
    const moved = await b.req("POST", "/resume", { queue: Q, code: (await codeOf(a)).code });
    assertEquals(moved.json.visitorId, joined.json.visitorId);
    // The old browser, token and stale ticket in hand, cannot take the place back.
    const back = await a.req("POST", "/join", { queue: Q, enqueueToken: token });
    assertEquals([back.status, back.json.error?.code], [409, "place_moved"]);
    // Still one place for the key.
    assertEquals((await t.engine.metrics(Q)).waiting, 1);
  } finally {
    await t.services.guards.stats.idle();
    t.close();
  }
});

Deno.test("a pre-queue participant's place moves before and after the opening draw", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 10, CAPACITY: 1000 });
  try {
    const opensAt = t.clock.now() + 60_000;
    await t.engine.setOpensAt(Q, opensAt);
    await t.engine.setPrequeue(Q, 30);
    const a = new Client(t.app), b = new Client(t.app), c = new Client(t.app);
    const joined = await a.join();
    assertEquals(joined.json.drawPending, true, joined.text);
    const moved = await b.req("POST", "/resume", { queue: Q, code: (await codeOf(a)).code });
    assertEquals([moved.status, moved.json.drawPending], [200, true], moved.text);
    await t.kv.get(keys.resumeHolder(Q, joined.json.visitorId)).then((h) =>
      assertEquals((h.value as { gen: number }).gen, 1)
    );
    // B keeps checking in until just before the opening.
    while (t.clock.now() < opensAt - 15_000) {
      due(t, b);
      assertEquals((await b.status()).status, 200);
    }
    t.clock.advance(opensAt + 1000 - t.clock.now());
    await t.engine.tick(Q);
    await t.engine.drawIfDue(Q);
    t.engine.ctx.invalidate(Q);
    due(t, b);
    const after = await b.status();
    assertEquals(after.status, 200, after.text);
    const again = await c.req("POST", "/resume", { queue: Q, code: (await codeOf(b)).code });
    assertEquals([again.status, again.json.visitorId], [200, joined.json.visitorId], again.text);
  } finally {
    t.close();
  }
});

Deno.test("a browser that joined before typing a code gives up the place it had", async () => {
  const t = await pausedApp();
  try {
    const a = new Client(t.app), b = new Client(t.app);
    await a.join();
    const own = await b.join();
    const moved = await b.req("POST", "/resume", { queue: Q, code: (await codeOf(a)).code });
    assertEquals([moved.status, moved.json.position], [200, 1], moved.text);
    assertEquals(await t.engine.visitor(Q, own.json.visitorId), null, "its own place is freed");
    await t.engine.sequence(Q); // the counts are exact once the sequencer has run (0.8)
    t.engine.ctx.invalidate(Q);
    assertEquals((await t.engine.metrics(Q)).waiting, 1);
  } finally {
    t.close();
  }
});

Deno.test("a code is one commit, a move is one commit, and a plain check-in writes no more", async () => {
  const t = await pausedApp();
  try {
    const a = new Client(t.app), b = new Client(t.app);
    await a.join();
    const commits = commitCounter(t.kv);
    const counted = async (f: () => Promise<unknown>) => {
      commits.reset();
      await f();
      return commits.count;
    };
    due(t, a);
    const plain = await counted(() => a.status());
    const code = (await a.req("POST", "/resume/code", { queue: Q })).json.code;
    assertEquals(await counted(() => b.req("POST", "/resume", { queue: Q, code })), 1, "move");
    t.clock.advance(3000);
    assertEquals(await counted(() => b.req("POST", "/resume/code", { queue: Q })), 1, "code");
    due(t, b);
    assertEquals(await counted(() => b.status()), plain, "the new holder's check-in");
    commits.stop();
  } finally {
    t.close();
  }
});
