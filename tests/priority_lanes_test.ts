/**
 * Priority lanes in admission: each lane is a line of its own (its arrival numbers in a range of
 * their own, lib/priority/line.ts), numbered by the tick's sequencer, and each second's admissions
 * are split among the lanes (strict first, then shares) with the main line taking the rest. These
 * tests check the split at the tick and at force-admit, positions exact and FIFO within each lane
 * and within the main line, a code or a lane token putting a join in its lane over HTTP, a place
 * held already moving into the lane, a code used up refused with nothing changed, and a removed
 * lane's waiters still admitted.
 */
import { assert, assertEquals } from "./assert.ts";
import { adminClient } from "./admin_helpers.ts";
import { Client, makeApp } from "./helpers.ts";
import { EnqueueTokens } from "../lib/guard/enqueue.ts";
import { issueCodes } from "../lib/priority/codes.ts";
import { saveLanes } from "../lib/priority/store.ts";
import { firstSeq, slotOf } from "../lib/priority/line.ts";
import type { Lane } from "../lib/priority/lanes.ts";
import { diagnose } from "../lib/queue/doctor.ts";

type App = Awaited<ReturnType<typeof makeApp>>;
const Q = "default";

/** Joins `n` visitors into `lane` (the main line when undefined), in this order. */
async function joinInto(t: App, n: number, prefix: string, lane?: string) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const o = await t.engine.join(Q, null, `${prefix}-${i}`, { records: [], lane });
    out.push((await t.services.signer.verifyTicket(o.ticket))!);
  }
  return out;
}

/** A paused line: 30 in the main line, 20 members, 3 staff, numbered by a tick. */
async function threeLines(t: App, lanes: Lane[]) {
  await saveLanes(t.kv, t.clock, Q, lanes);
  await t.engine.setPaused(Q, true);
  await joinInto(t, 30, "main");
  await joinInto(t, 20, "member", "members");
  await joinInto(t, 3, "staff", "staff");
  await t.engine.tick(Q);
}

/** Three lines opened (see `threeLines`, with `LANES`) and the first second's tick: 10 admitted. */
async function firstSecond(t: App) {
  await threeLines(t, LANES);
  await t.engine.setPaused(Q, false);
  t.clock.advance(1000);
  assertEquals((await t.engine.tick(Q)).admitted, 10);
}

/** The states of `prefix-0` .. `prefix-(n-1)`: how many were admitted (or entered). */
async function admittedOf(t: App, prefix: string, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const v = await t.engine.visitor(Q, `${prefix}-${i}`);
    if (v && v.state !== "waiting") out.push(i);
  }
  return out;
}

/** The position `prefix-i` is told now (a status that is not due answers from memory). */
async function positionOf(t: App, prefix: string, i: number): Promise<number | undefined> {
  const v = await t.engine.visitor(Q, `${prefix}-${i}`);
  assert(v && v.state === "waiting", `${prefix}-${i} waits`);
  const ticket = { sub: v.id, queue: Q, iat: 0, seq: v.seq, nextCheckAt: v.nextCheckAt };
  return (await t.engine.status(Q, ticket)).view.position;
}

const LANES: Lane[] = [{ name: "members", share: 0.3 }, { name: "staff", strict: true }];

Deno.test("each lane is a line of its own: numbered apart, positions exact and FIFO in it", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 10, CAPACITY: 1000 });
  try {
    await threeLines(t, LANES);
    const member0 = (await t.engine.visitor(Q, "member-0"))!;
    const staff0 = (await t.engine.visitor(Q, "staff-0"))!;
    assert(slotOf(member0.seq) > 0 && slotOf(staff0.seq) > 0, "lanes have their own ranges");
    assert(slotOf(member0.seq) !== slotOf(staff0.seq), "each lane its own");
    assertEquals(member0.seq, firstSeq(slotOf(member0.seq)), "a lane numbers from its start");
    assertEquals((await t.engine.visitor(Q, "main-0"))!.seq, 1, "the main line from 1");
    for (const i of [0, 7, 19]) assertEquals(await positionOf(t, "member", i), i + 1);
    for (const i of [0, 2]) assertEquals(await positionOf(t, "staff", i), i + 1);
    for (const i of [0, 29]) assertEquals(await positionOf(t, "main", i), i + 1);
    const m = await t.engine.metrics(Q);
    assertEquals(m.waiting, 53, "every line counts in the queue's waiting");
    // A new join into the lane is told the back of the lane (provisional until numbered).
    const late = await t.engine.join(Q, null, "member-late", { records: [], lane: "members" });
    assertEquals([late.view.position, late.view.positionExact], [21, false]);
    t.clock.advance(1000);
    await t.engine.tick(Q);
    const v = (await t.engine.visitor(Q, "member-late"))!;
    const claims = { sub: v.id, queue: Q, iat: 0, seq: v.seq, nextCheckAt: v.nextCheckAt };
    const now = (await t.engine.status(Q, claims)).view;
    assertEquals([now.position, now.lane], [21, "members"], "exact once numbered");
  } finally {
    t.close();
  }
});

Deno.test("a second's admissions: strict lane first, then the share, the main line the rest", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 10, CAPACITY: 1000 });
  try {
    await firstSecond(t);
    // 3 staff (strict), then 30% of the 7 left (2) to members, 5 to the main line: each from the
    // head of its own line.
    assertEquals(await admittedOf(t, "staff", 3), [0, 1, 2]);
    assertEquals(await admittedOf(t, "member", 20), [0, 1]);
    assertEquals(await admittedOf(t, "main", 30), [0, 1, 2, 3, 4]);
    t.clock.advance(1000);
    assertEquals((await t.engine.tick(Q)).admitted, 10);
    // No staff left: 3 of 10 to members, 7 to the main line.
    assertEquals((await admittedOf(t, "member", 20)).length, 5);
    assertEquals((await admittedOf(t, "main", 30)).length, 12);
    // Positions stay exact within each line after admissions from its head.
    assertEquals(await positionOf(t, "member", 5), 1);
    assertEquals(await positionOf(t, "member", 19), 15);
    assertEquals(await positionOf(t, "main", 12), 1);
    const counts = (await t.kv.get<{ laneAdmitted: Record<string, number> }>(["counts", Q]))
      .value!;
    const slot = slotOf((await t.engine.visitor(Q, "member-19"))!.seq);
    assertEquals(counts.laneAdmitted[slot], 5, "admissions counted per lane");
    const lanes = (await t.engine.metrics(Q)).lanes;
    assertEquals(lanes.find((l) => l.lane === "members"), {
      lane: "members",
      waiting: 15,
      admitted: 5,
    });
    assertEquals(lanes.find((l) => l.lane === "staff"), { lane: "staff", waiting: 0, admitted: 3 });
    const prom = await t.app.request("/metrics?format=prometheus", {
      headers: { authorization: `Bearer ${t.config.TOKEN_SECRET}` },
    });
    const text = await prom.text();
    assert(
      text.includes('tollgate_queue_lane_waiting{queue="default",lane="members"} 15'),
      text.split("\n").filter((l) => l.includes("lane")).join("\n") ||
        `no lane series: ${prom.status}`,
    );
  } finally {
    t.close();
  }
});

Deno.test("a visitor leaving a lane mid-line keeps the positions behind it exact", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 10, CAPACITY: 1000 });
  try {
    await threeLines(t, LANES);
    const v = (await t.engine.visitor(Q, "member-4"))!;
    const ticket = { sub: v.id, queue: Q, iat: 0, seq: v.seq, nextCheckAt: 0 };
    await t.engine.leave(Q, ticket, v.id);
    t.clock.advance(1000);
    await t.engine.tick(Q); // paused: numbers nothing new, admits nobody
    assertEquals(await positionOf(t, "member", 3), 4);
    assertEquals(await positionOf(t, "member", 5), 5, "one ahead of it left");
    assertEquals(await positionOf(t, "member", 19), 19);
    assertEquals(await positionOf(t, "main", 29), 30, "the main line does not count lanes");
  } finally {
    t.close();
  }
});

Deno.test("force-admit follows the lanes too: strict first", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 1, CAPACITY: 1000 });
  try {
    await threeLines(t, LANES);
    await t.engine.setPaused(Q, false);
    assertEquals(await t.engine.admit(Q, 4), 4);
    assertEquals(await admittedOf(t, "staff", 3), [0, 1, 2]);
    assertEquals(
      (await admittedOf(t, "member", 20)).length + (await admittedOf(t, "main", 30)).length,
      1,
    );
  } finally {
    t.close();
  }
});

Deno.test("a removed lane's waiters are still admitted, never stranded", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 10, CAPACITY: 1000 });
  try {
    await threeLines(t, LANES);
    await saveLanes(t.kv, t.clock, Q, [{ name: "staff", strict: true }]);
    await t.engine.setPaused(Q, false);
    let members = 0;
    for (let s = 0; s < 8; s++) {
      t.clock.advance(1000);
      await t.engine.tick(Q);
    }
    members = (await admittedOf(t, "member", 20)).length;
    assert(members >= 8, `a removed lane drains (${members} admitted)`);
    assertEquals((await admittedOf(t, "main", 30)).length, 30, "the main line goes first");
  } finally {
    t.close();
  }
});

Deno.test("over HTTP: a code puts the join in its lane, is counted, and is refused used up", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 10, CAPACITY: 1000 });
  try {
    await saveLanes(t.kv, t.clock, Q, LANES);
    await t.engine.setPaused(Q, true);
    const { codes } = await issueCodes(t.kv, t.clock, t.config.TOKEN_SECRET, {
      queue: Q,
      lane: "members",
      count: 1,
      maxUses: 1,
      expiresAt: null,
      label: "vip",
      createdBy: "test",
    });
    const a = new Client(t.app);
    const joined = await a.req("POST", "/join", { queue: Q, priorityCode: codes[0] });
    assertEquals(joined.status, 202, joined.text);
    assertEquals((await t.engine.visitor(Q, a.visitorId))!.lane, "members");
    const b = new Client(t.app);
    const again = await b.req("POST", "/join", { queue: Q, priorityCode: codes[0] });
    assertEquals(again.status, 403, again.text);
    assertEquals(again.json.error.code, "priority_code_invalid");
    assertEquals(again.json.error.details.reason, "used_up");
    assertEquals(b.cookies.has("tg_ticket"), false, "a refused code takes no place");
    const bad = await b.req("POST", "/join", { queue: Q, priorityCode: "not-a-code" });
    assertEquals([bad.status, bad.json.error.details.reason], [403, "malformed"]);
    await t.engine.tick(Q);
    const v = (await t.engine.visitor(Q, a.visitorId))!;
    assert(slotOf(v.seq) > 0, "numbered into the lane's line");
    assertEquals((await a.status()).json.position, 1);
  } finally {
    t.close();
  }
});

Deno.test("over HTTP: a place held already moves to the lane with a code; a lane token places in its lane", async () => {
  const secret = "enqueue-secret-for-lanes-0123456789abcdef";
  const t = await makeApp({ ADMIT_PER_SECOND: 10, CAPACITY: 1000, ENQUEUE_SECRET: secret });
  try {
    await saveLanes(t.kv, t.clock, Q, LANES);
    await t.engine.setPaused(Q, true);
    await joinInto(t, 5, "main");
    const a = new Client(t.app);
    assertEquals((await a.join(Q)).status, 202);
    await t.engine.tick(Q);
    assertEquals((await a.status()).json.position, 6);
    const { codes } = await issueCodes(t.kv, t.clock, t.config.TOKEN_SECRET, {
      queue: Q,
      lane: "members",
      count: 1,
      maxUses: 3,
      expiresAt: null,
      label: "",
      createdBy: "test",
    });
    const moved = await a.req("POST", "/join", { queue: Q, priorityCode: codes[0] });
    assertEquals(moved.status, 202, moved.text);
    t.clock.advance(1000);
    await t.engine.tick(Q);
    assertEquals((await a.status()).json.position, 1, "first in the members' lane");
    assertEquals((await t.engine.metrics(Q)).waiting, 6, "moved, not doubled");

    const tokens = new EnqueueTokens(secret);
    const exp = Math.floor(t.clock.now() / 1000) + 600;
    const c = new Client(t.app);
    const token = tokens.sign({ queue: Q, key: "user-42", exp, lane: "staff" });
    const laned = await c.req("POST", "/join", { queue: Q, enqueueToken: token });
    assertEquals(laned.status, 202, laned.text);
    assertEquals((await t.engine.visitor(Q, c.visitorId))!.lane, "staff");
  } finally {
    t.close();
  }
});

Deno.test("the admin API keeps a lane's slot when lanes are edited", async () => {
  const t = await makeApp();
  try {
    const { client: admin } = await adminClient(t);
    await admin.req("PUT", "/api/admin/lanes", { lanes: LANES });
    const first = await t.kv.get<{ slots: Record<string, number> }>([
      "settings",
      "priorityLanes",
      Q,
    ]);
    await admin.req("PUT", "/api/admin/lanes", { lanes: [{ name: "vip", share: 0.2 }, LANES[0]] });
    const second = await t.kv.get<{ slots: Record<string, number> }>([
      "settings",
      "priorityLanes",
      Q,
    ]);
    assertEquals(second.value!.slots.members, first.value!.slots.members);
    assertEquals(second.value!.slots.staff, first.value!.slots.staff, "kept when removed");
    assertEquals(new Set(Object.values(second.value!.slots)).size, 3, "vip a new slot");
    const view = await admin.req("GET", "/api/admin/lanes");
    assertEquals(view.json.lanes.map((l: Lane) => l.name), ["vip", "members"]);
    assertEquals("slots" in view.json, false);
  } finally {
    t.close();
  }
});

Deno.test("the waiting page: ?code= joins the lane once (a reload counts no use), a bad code gets its page", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 10, CAPACITY: 1000 });
  try {
    await saveLanes(t.kv, t.clock, Q, LANES);
    await t.engine.setPaused(Q, true);
    const { codes, records } = await issueCodes(t.kv, t.clock, t.config.TOKEN_SECRET, {
      queue: Q,
      lane: "members",
      count: 1,
      maxUses: 5,
      expiresAt: null,
      label: "",
      createdBy: "test",
    });
    // A visitor in the main line is offered the code field (the queue has lanes).
    const plain = new Client(t.app);
    await t.engine.ctx.view(Q);
    const page = await plain.req("GET", `/wait?queue=${Q}`);
    assertEquals(page.status, 200);
    assert(page.text.includes('name="code"'), "the code field is offered");
    // With the code: in the lane, told so, and no field any more.
    const a = new Client(t.app);
    const laned = await a.req("GET", `/wait?queue=${Q}&code=${codes[0]}`);
    assertEquals(laned.status, 200, laned.text.slice(0, 300));
    await t.engine.tick(Q);
    const again = await a.req("GET", `/wait?queue=${Q}&code=${codes[0]}`);
    assertEquals(again.status, 200);
    assert(again.text.includes("Priority line: members"), "the page names the lane");
    assert(!again.text.includes('name="code"'), "no code field in a lane");
    const hash = (await t.kv.get<string>(["priorityCodeId", Q, records[0].id])).value!;
    const uses = (await t.kv.get<{ uses: number }>(["priorityCode", Q, hash])).value!.uses;
    assertEquals(uses, 1, "a reload with the code counts no second use");
    const bad = await new Client(t.app).req("GET", `/wait?queue=${Q}&code=AAAAA-BBBBB-CCCCC`);
    assertEquals(bad.status, 403);
    assert(bad.text.includes("This priority code can't be used"), bad.text.slice(0, 400));
  } finally {
    t.close();
  }
});

Deno.test("the doctor finds nothing wrong with lanes' lines (their numbers are their own)", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 10, CAPACITY: 1000 });
  try {
    await threeLines(t, LANES);
    await t.engine.setPaused(Q, false);
    t.clock.advance(1000);
    await t.engine.tick(Q);
    const report = await diagnose(t.kv, Q, { pauseMs: 0 });
    assertEquals(report.indexProblems, []);
    assertEquals(report.counterDiffs, []);
    assertEquals(report.recounted, report.stored, "the counts agree with a recount");
  } finally {
    t.close();
  }
});

Deno.test("a strict lane's join goes in at the next tick though two seconds' main line waits numbered", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 10, CAPACITY: 1000 });
  try {
    await firstSecond(t);
    // The line numbered holds over two seconds' admissions; a staff join comes, not numbered yet.
    await joinInto(t, 1, "late-staff", "staff");
    t.clock.advance(1000);
    await t.engine.tick(Q);
    assertEquals(await admittedOf(t, "late-staff", 1), [0], "numbered, then admitted first");
  } finally {
    t.close();
  }
});

Deno.test("the first join ever of a configured strict lane goes in at the next tick, before a long main line", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 10, CAPACITY: 1000 });
  try {
    await saveLanes(t.kv, t.clock, Q, [{ name: "staff", strict: true }]);
    for (let i = 0; i < 30; i++) await t.engine.join(Q, null, `main-${i}`, { records: [] });
    await t.engine.sequence(Q);
    await t.engine.join(Q, null, "staff-0", { records: [], lane: "staff" });
    t.clock.advance(1000);
    await t.engine.tick(Q);
    const v = await t.engine.visitor(Q, "staff-0");
    assert(v && v.state !== "waiting", "the strict lane's join was admitted at the next tick");
  } finally {
    t.close();
  }
});
