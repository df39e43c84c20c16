/**
 * Every refusal `POST /join` answers is in openapi.yaml under its status, by its code. The sweep
 * found three the contract left out: 429 `rate_limited` (the per-client join limit; no 429 was
 * listed at all), 403 `priority_code_invalid` and 503 `not_open` (a pre-queue's window not open).
 * Each is provoked here through the served handler and looked up in the file.
 */
import { parse } from "yaml";
import { assert, assertEquals } from "./assert.ts";
import { adminClient } from "./admin_helpers.ts";
import { Client, makeApp } from "./helpers.ts";

const HOUR = 3_600_000;

Deno.test("each refusal of POST /join is documented under its status and code", async () => {
  const doc = parse(await Deno.readTextFile(new URL("../openapi.yaml", import.meta.url)));
  const join = doc.paths["/join"].post.responses as Record<string, { description: string }>;
  const t = await makeApp({ QUEUES: ["default", "later"] });
  try {
    const { client: admin } = await adminClient(t);
    const seen: [number, string][] = [];
    const note = (r: { status: number; json: { error: { code: string } } }) =>
      seen.push([r.status, r.json.error.code]);

    await admin.req("PUT", "/api/admin/join-limits", { joinsPerClientPerMinute: 1 });
    assertEquals((await new Client(t.app).join()).status, 200);
    note(await new Client(t.app).join());

    await admin.req("PUT", "/api/admin/lanes", { lanes: [{ name: "members", share: 0.3 }] });
    note(await new Client(t.app).req("POST", "/join", { queue: "later", priorityCode: "nope" }));

    const opensAt = t.clock.now() + 3 * HOUR;
    const sched = await admin.req("PUT", "/api/admin/schedule", { queue: "later", opensAt });
    assertEquals(sched.status, 200, sched.text);
    const pre = await admin.req("PUT", "/api/admin/prequeue", {
      queue: "later",
      enabled: true,
      windowMinutes: 60,
    });
    assertEquals(pre.status, 200, pre.text);
    note(await new Client(t.app).join("later"));

    assertEquals(seen, [[429, "rate_limited"], [403, "priority_code_invalid"], [503, "not_open"]]);
    for (const [status, code] of seen) {
      const d = join[String(status)]?.description ?? "";
      assert(d.includes(`\`${code}\``), `openapi.yaml POST /join ${status} names ${code}: ${d}`);
    }
  } finally {
    t.close();
  }
});

Deno.test("a check's refused query is documented: 400 on each /verify route", async () => {
  const doc = parse(await Deno.readTextFile(new URL("../openapi.yaml", import.meta.url)));
  const t = await makeApp();
  try {
    for (const path of ["/verify", "/verify/auth-request", "/verify/forward-auth"]) {
      const res = await t.app.request(`${path}?queue=a&queue=b`);
      const body = await res.json();
      assertEquals([res.status, body.error.code], [400, "bad_request"], path);
      const d = doc.paths[path].get.responses["400"]?.description ?? "";
      assert(d.includes("`bad_request`"), `openapi.yaml GET ${path} lists its 400: ${d}`);
    }
  } finally {
    t.close();
  }
});

Deno.test("the contract says what a body over the limit or without a JSON type gets", async () => {
  const doc = parse(await Deno.readTextFile(new URL("../openapi.yaml", import.meta.url)));
  const t = await makeApp();
  try {
    const { client: admin } = await adminClient(t);
    const big = await admin.req("PUT", "/api/admin/room", {
      mode: "reject",
      closedMessage: "x".repeat(70_000),
    });
    assertEquals([big.status, big.json.error.code], [413, "payload_too_large"]);
    assert(doc.info.description.includes("413 `payload_too_large`"), doc.info.description);
    assert(doc.info.description.includes("Content-Type: application/json"), doc.info.description);
  } finally {
    t.close();
  }
});
