/**
 * One browser waiting in two queues (two parts of one site, docs/forward-auth.md "Several
 * queues") keeps both places: a join, a resume or a leave in one queue must not drop the ticket
 * of the other. With one ticket per cookie name, the second join overwrote the first queue's
 * ticket, whose page then found no ticket and joined again at the back (its place lost).
 */
import { MAX_TICKETS } from "../http/cookies.ts";
import { assert, assertEquals } from "./assert.ts";
import { Client, makeApp } from "./helpers.ts";

const QUEUES = ["shop", "tickets"];

/** An app with two queues, both paused so everyone who joins waits. */
async function twoQueues() {
  const t = await makeApp({ QUEUES });
  for (const q of QUEUES) await t.engine.setPaused(q, true);
  return t;
}

Deno.test("a browser that joins a second queue keeps its place in the first", async () => {
  const t = await twoQueues();
  try {
    const ahead = new Client(t.app);
    await ahead.join("shop");
    const v = new Client(t.app);
    const shop = await v.join("shop");
    assertEquals([shop.status, shop.json.position], [202, 2]);
    const tickets = await v.join("tickets");
    assertEquals(tickets.status, 202);
    // Both places answer their status (the served handler: fast paths included).
    const s1 = await v.status("shop");
    assertEquals([s1.status, s1.json.visitorId, s1.json.position], [200, shop.json.visitorId, 2]);
    const s2 = await v.status("tickets");
    assertEquals([s2.status, s2.json.visitorId], [200, tickets.json.visitorId]);
    // Joining the first queue again resumes it: no second place at the back.
    const again = await v.join("shop");
    assertEquals([again.json.visitorId, again.json.position], [shop.json.visitorId, 2]);
    assertEquals((await t.engine.metrics("shop")).waiting, 2);
    // Numbered by the tick, each queue's due check-in rewrites only its own ticket.
    for (const q of QUEUES) await t.engine.sequence(q);
    t.clock.advance(6_000);
    for (const q of QUEUES) assertEquals((await v.status(q)).status, 200);
    for (const q of QUEUES) assertEquals((await v.status(q)).status, 200);
  } finally {
    await t.close();
  }
});

Deno.test("leaving one queue keeps the place and the admission of the other", async () => {
  const t = await twoQueues();
  try {
    await t.engine.setPaused("tickets", false);
    const v = new Client(t.app);
    const admitted = await v.join("tickets");
    assertEquals(admitted.status, 200);
    const w = await v.join("shop");
    assertEquals(w.status, 202);
    const left = await v.req("POST", "/leave", { queue: "shop", visitorId: w.json.visitorId });
    assertEquals([left.status, left.json], [200, { status: "left" }]);
    await t.engine.sequence("shop"); // takes the leave of the join it had not numbered in
    assertEquals(await t.engine.visitor("shop", w.json.visitorId), null);
    // The tickets place and its access token are still this browser's.
    const st = await v.status("tickets");
    assertEquals([st.status, st.json.visitorId], [200, admitted.json.visitorId]);
    assertEquals((await v.req("GET", "/verify?queue=tickets")).status, 204);
    // Leaving twice is not an error (DECISIONS), though the other queue's ticket is still sent.
    const twice = await v.req("POST", "/leave", { queue: "shop", visitorId: w.json.visitorId });
    assertEquals([twice.status, twice.json], [200, { status: "left" }]);
    assertEquals((await v.status("tickets")).status, 200);
    // Leaving the last queue clears both cookies, as before.
    await v.req("POST", "/leave", { queue: "tickets", visitorId: admitted.json.visitorId });
    assertEquals([...v.cookies.keys()], []);
  } finally {
    await t.close();
  }
});

Deno.test("moving a place here with a code keeps this browser's place in another queue", async () => {
  const t = await twoQueues();
  try {
    const phone = new Client(t.app), laptop = new Client(t.app);
    const mine = await phone.join("shop");
    const theirs = await laptop.join("tickets");
    await t.engine.sequence("tickets");
    assertEquals((await laptop.status("tickets")).status, 200);
    const code = (await laptop.req("POST", "/resume/code", { queue: "tickets" })).json.code;
    const moved = await phone.req("POST", "/resume", { queue: "tickets", code });
    assertEquals([moved.status, moved.json.visitorId], [200, theirs.json.visitorId]);
    const st = await phone.status("shop");
    assertEquals([st.status, st.json.visitorId], [200, mine.json.visitorId]);
  } finally {
    await t.close();
  }
});

Deno.test("the ticket cookie keeps at most MAX_TICKETS queues, newest first, under 4 KB", async () => {
  const queues = Array.from({ length: MAX_TICKETS + 2 }, (_, i) => `q${i}`);
  const t = await makeApp({ QUEUES: queues });
  try {
    for (const q of queues) await t.engine.setPaused(q, true);
    const v = new Client(t.app);
    for (const q of queues) assertEquals((await v.join(q)).status, 202);
    const cookie = v.cookies.get("tg_ticket")!;
    assert(cookie.length < 4000, `tg_ticket is ${cookie.length} bytes`);
    assertEquals(cookie.split("~").length, MAX_TICKETS);
    // The newest queues keep their places; the oldest ones' tickets made room.
    for (const q of queues.slice(-MAX_TICKETS)) assertEquals((await v.status(q)).status, 200);
    assertEquals((await v.status("q0")).status, 401);
  } finally {
    await t.close();
  }
});
