/**
 * A join into a priority lane is answered like its status: the lane named, its position in that
 * lane's line and a wait at the lane's pace. The sweep found the join's answer (the 202 an API
 * client reads first) naming no lane and promising the main line's pace and counts, while the
 * status a second later said `lane: "members"`: a client checking that its code took effect was
 * told it had not.
 */
import { assert, assertEquals } from "./assert.ts";
import { Client, makeApp } from "./helpers.ts";
import { adminClient } from "./admin_helpers.ts";

const Q = "default";

/** An app with one slot and a "members" lane (a share of 0.2), and its admin. */
async function laneApp() {
  const t = await makeApp({ ADMIT_PER_SECOND: 10, CAPACITY: 1 });
  const { client: admin } = await adminClient(t);
  const lanes = await admin.req("PUT", "/api/admin/lanes", {
    lanes: [{ name: "members", share: 0.2 }],
  });
  assertEquals(lanes.status, 200, lanes.text);
  return { t, admin };
}

Deno.test("a code's join answer names its lane, its place there and the lane's pace", async () => {
  const { t, admin } = await laneApp();
  try {
    await t.setBranding({ showWaitingCount: true });
    // The one slot taken, then a main line of five: everyone after waits.
    assertEquals((await new Client(t.app).join(Q)).status, 200);
    for (let i = 0; i < 5; i++) assertEquals((await new Client(t.app).join(Q)).status, 202);
    t.clock.advance(1000);
    await t.engine.tick(Q);
    const issued = await admin.req("POST", "/api/admin/priority-codes", { lane: "members" });
    const codes = issued.json.codes as string[];
    const member = new Client(t.app);
    const joined = await member.req("POST", "/join", { queue: Q, priorityCode: codes[0] });
    assertEquals(joined.status, 202, joined.text);
    assertEquals(joined.json.lane, "members", joined.text);
    assertEquals(joined.json.position, 1, "first in its lane, not sixth in the main line");
    assertEquals(joined.json.positionExact, false);
    assert(!("ahead" in joined.json) && !("behind" in joined.json), joined.text);
    // Its status before the tick numbers it says the same (it said the main line's sixth place).
    const early = await member.status(Q);
    assertEquals([early.json.lane, early.json.position], ["members", 1], early.text);
    assertEquals(early.json.positionExact, false, early.text);

    t.clock.advance(1000);
    await t.engine.tick(Q);
    const status = await member.status(Q);
    assertEquals([status.json.lane, status.json.position], ["members", 1], status.text);
    assertEquals(
      joined.json.estimatedWaitSeconds,
      status.json.estimatedWaitSeconds,
      "the join promised the lane's pace, as its status does",
    );
    // A main-line join beside it is answered as before.
    const plain = await new Client(t.app).join(Q);
    assertEquals(plain.status, 202, plain.text);
    assert(!("lane" in plain.json), plain.text);
  } finally {
    t.close();
  }
});

Deno.test("a main-line join's provisional place counts the main line only, not the lanes' waiters", async () => {
  const { t, admin } = await laneApp();
  try {
    // The one slot taken, then two in the main line and three in the lane, all numbered.
    assertEquals((await new Client(t.app).join(Q)).status, 200);
    for (let i = 0; i < 2; i++) assertEquals((await new Client(t.app).join(Q)).status, 202);
    const issued = await admin.req("POST", "/api/admin/priority-codes", {
      lane: "members",
      count: 3,
    });
    for (const code of issued.json.codes as string[]) {
      const m = await new Client(t.app).req("POST", "/join", { queue: Q, priorityCode: code });
      assertEquals(m.json.lane, "members", m.text);
    }
    t.clock.advance(1000);
    await t.engine.tick(Q);
    const plain = new Client(t.app);
    const joined = await plain.join(Q);
    assertEquals(joined.status, 202, joined.text);
    assertEquals(joined.json.position, 3, "third in the main line (the lane's three wait apart)");
    const early = await plain.status(Q);
    assertEquals(early.json.position, 3, early.text);
    t.clock.advance(1000);
    await t.engine.tick(Q);
    const numbered = await plain.status(Q);
    assertEquals(numbered.json.position, 3, numbered.text);
    assert(!("positionExact" in numbered.json), "numbered: exact");
  } finally {
    t.close();
  }
});
