/**
 * Values an operator may get wrong in the traffic controls, each refused or read so the mistake
 * shows, and nothing changed: a time sent in seconds where milliseconds belong (shown as the 1970
 * date it means), a closed room's blank text (the default words instead of spaces), a code revoked
 * in the wrong queue (the queue looked in is named), and a Safety Net that could never calm (a
 * lower threshold of 0). Each was found by a sweep "as a new operator would".
 */
import { assert, assertEquals } from "./assert.ts";
import { adminClient } from "./admin_helpers.ts";
import { makeApp } from "./helpers.ts";

Deno.test("a time sent in seconds where milliseconds belong is shown as read", async () => {
  const t = await makeApp();
  try {
    const { client: admin } = await adminClient(t);
    const seconds = Math.floor(t.clock.now() / 1000) + 3600; // an hour ahead, but in seconds
    const read = new Date(seconds).toISOString(); // what it means as milliseconds: 1970
    const opening = await admin.req("PUT", "/api/admin/schedule", { opensAt: seconds });
    assertEquals(opening.status, 400, opening.text);
    assert(opening.json.error.message.includes(read), opening.text);
    assert(opening.json.error.message.includes("unix milliseconds"), opening.text);
    assertEquals(opening.json.error.details.fields[0].path, "opensAt");
    await admin.req("PUT", "/api/admin/lanes", { lanes: [{ name: "members", share: 0.3 }] });
    const code = await admin.req("POST", "/api/admin/priority-codes", {
      lane: "members",
      expiresAt: seconds,
    });
    assertEquals(code.status, 400, code.text);
    assert(code.json.error.message.includes(read), code.text);
    const settings = (await admin.req("GET", "/api/admin/queues")).json.queues[0];
    assertEquals(settings.opensAt, null, "nothing changed");
    assertEquals((await admin.req("GET", "/api/admin/priority-codes")).json.codes, []);
  } finally {
    t.close();
  }
});

Deno.test("a closed room's blank text is no text: the default words are shown, not spaces", async () => {
  const t = await makeApp();
  try {
    const { client: admin } = await adminClient(t);
    const put = await admin.req("PUT", "/api/admin/room", {
      mode: "reject",
      closedMessage: "  \n ",
    });
    assertEquals(put.status, 200, put.text);
    assertEquals(put.json.closedMessage, "", "stored as no text");
    const join = await t.app.request("/join", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ queue: "default" }),
    });
    const body = await join.json();
    assertEquals([join.status, body.error.code], [503, "room_closed"]);
    assert(/closed right now/.test(body.error.message), JSON.stringify(body));
    const page = await (await t.app.request("/wait?queue=default")).text();
    assert(page.includes("This waiting room is closed right now."), "the default words");
    // Text around which the operator left spaces is kept, without them.
    const own = await admin.req("PUT", "/api/admin/room", {
      mode: "reject",
      closedMessage: "  Back at noon. ",
    });
    assertEquals(own.json.closedMessage, "Back at noon.");
  } finally {
    t.close();
  }
});

Deno.test("revoking a code of another queue without ?queue= says which queue was looked in", async () => {
  const t = await makeApp({ QUEUES: ["default", "shop"] });
  try {
    const { client: admin } = await adminClient(t);
    await admin.req("PUT", "/api/admin/lanes", {
      queue: "shop",
      lanes: [{ name: "members", share: 0.3 }],
    });
    const issued = await admin.req("POST", "/api/admin/priority-codes", {
      queue: "shop",
      lane: "members",
    });
    const id = issued.json.records[0].id;
    const miss = await admin.req("DELETE", `/api/admin/priority-codes/${id}`);
    assertEquals([miss.status, miss.json.error.code], [404, "not_found"]);
    assert(miss.json.error.message.includes(`queue "default"`), miss.text);
    const hit = await admin.req("DELETE", `/api/admin/priority-codes/${id}?queue=shop`);
    assertEquals(hit.status, 200, hit.text);
  } finally {
    t.close();
  }
});

Deno.test("a Safety Net that could never calm (a lower threshold of 0) is refused", async () => {
  const t = await makeApp();
  try {
    const { client: admin } = await adminClient(t);
    const before = (await admin.req("GET", "/api/admin/room")).json;
    for (
      const [low, field] of [["joinsPerMinuteLow", "joinsPerMinute"], ["holdingLow", "holding"]]
    ) {
      const safetyNet: Record<string, number | null> = {
        joinsPerMinuteHigh: null,
        joinsPerMinuteLow: null,
        holdingHigh: null,
        holdingLow: null,
        calmMinutes: 5,
      };
      safetyNet[`${field}High`] = 10;
      safetyNet[low] = 0;
      const res = await admin.req("PUT", "/api/admin/room", { mode: "auto", safetyNet });
      assertEquals(res.status, 400, res.text);
      assertEquals(res.json.error.details.fields[0].path, `safetyNet.${low}`, res.text);
      assert(/at least 1/.test(res.json.error.message), res.text);
    }
    assertEquals((await admin.req("GET", "/api/admin/room")).json, before, "nothing changed");
  } finally {
    t.close();
  }
});
