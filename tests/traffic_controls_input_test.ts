/**
 * Bad input to the operator's traffic controls changes nothing and says what to fix. Found by a
 * sweep "as a new operator would": a misspelt optional field (`closedMesage`, `maxUse`) used to
 * be dropped without a word while the rest of the write went through, so the room closed with
 * the default text or a single-use code was issued where 100 uses were meant. Every such write
 * now answers 400 naming the unknown field and the fields the call takes, and nothing changes.
 */
import { assert, assertEquals } from "./assert.ts";
import { type AdminClient, adminClient } from "./admin_helpers.ts";
import { makeApp, operator } from "./helpers.ts";

/** The `details.fields` messages of a 400, joined (what an operator reads). */
function said(res: { json: { error: { message: string; details: { fields?: unknown[] } } } }) {
  return JSON.stringify(res.json.error);
}

/** Every setting the refused writes below could have changed, as read back. */
async function settingsOf(admin: AdminClient) {
  const out: Record<string, unknown> = {};
  for (
    const path of [
      "/api/admin/room",
      "/api/admin/lanes",
      "/api/admin/priority-codes",
      "/api/admin/path-rules",
      "/api/admin/webhooks",
      "/api/admin/queues",
      "/api/admin/sessions",
      "/api/admin/return-grace",
      "/api/admin/join-limits",
      "/api/admin/geo-block",
      "/api/admin/bypass",
      "/api/admin/health",
      "/api/admin/origin",
      "/api/admin/crawlers",
    ]
  ) out[path] = (await admin.req("GET", path)).json;
  return out;
}

Deno.test("a misspelt field on a traffic-control write is a 400 naming it; nothing changes", async () => {
  const t = await makeApp();
  try {
    const { client: admin } = await adminClient(t);
    const ok = await admin.req("PUT", "/api/admin/lanes", {
      lanes: [{ name: "members", share: 0.3 }],
    });
    assertEquals(ok.status, 200, ok.text);
    const before = await settingsOf(admin);
    const writes: [string, string, Record<string, unknown>, string][] = [
      ["PUT", "/api/admin/room", { mode: "reject", closedMesage: "Back at noon" }, "closedMesage"],
      [
        "PUT",
        "/api/admin/room",
        {
          mode: "auto",
          safetyNet: {
            joinsPerMinuteHigh: 10,
            joinsPerMinuteLow: 5,
            holdingHigh: null,
            holdingLow: null,
            calmMinutes: 5,
            calmMinute: 9,
          },
        },
        "calmMinute",
      ],
      ["PUT", "/api/admin/lanes", { lanes: [{ name: "vip", share: 0.2, stirct: true }] }, "stirct"],
      ["POST", "/api/admin/priority-codes", { lane: "members", maxUse: 100 }, "maxUse"],
      [
        "PUT",
        "/api/admin/path-rules",
        { rules: [{ match: "asset", pattern: "css", action: "bypass", notes: "x" }] },
        "notes",
      ],
      ["POST", "/api/admin/pause", { paused: true, queeu: "default" }, "queeu"],
      ["POST", "/api/admin/mode", { mode: "lottery", x: 1 }, "x"],
      ["PUT", "/api/admin/schedule", { opensAt: null, opensAtSeconds: 1 }, "opensAtSeconds"],
      ["PUT", "/api/admin/rate", { admitPerSecond: 5, admitsPerSecond: 50 }, "admitsPerSecond"],
      ["PUT", "/api/admin/capacity", { capacity: 5, capacityy: 50 }, "capacityy"],
      [
        "PUT",
        "/api/admin/queue-limits",
        {
          maxWaitingVisitors: 5,
          previousMaxWaitingVisitors: t.config.MAX_WAITING_VISITORS,
          confirmChanges: true,
          confirm: true,
        },
        "confirm",
      ],
      [
        "PUT",
        "/api/admin/webhooks",
        { enabled: false, url: "", events: ["pause"], depthTreshold: 5 },
        "depthTreshold",
      ],
      [
        "PUT",
        "/api/admin/sessions",
        { sessionMode: "sliding", sessionIdleSecond: 60 },
        "sessionIdleSecond",
      ],
      ["PUT", "/api/admin/return-grace", { returnGraceSeconds: 60, grace: 1 }, "grace"],
      ["PUT", "/api/admin/join-limits", { joinsPerClientPerMinute: 5, perMinute: 1 }, "perMinute"],
      ["POST", "/api/admin/queues", { name: "shop", capcity: 5 }, "capcity"],
      ["PUT", "/api/admin/prequeue", { enabled: false, window: 5 }, "window"],
      ["PUT", "/api/admin/draw/publish", { published: true, publish: true }, "publish"],
      ["POST", "/api/admin/pass", { queue: "default", q: 1 }, "q"],
      [
        "PUT",
        "/api/admin/geo-block",
        { enabled: true, countries: ["RU"], ttlHours: 1 },
        "countries",
      ],
      ["PUT", "/api/admin/bypass", { allowlist: "10.0.0.0/8" }, "allowlist"],
      ["PUT", "/api/admin/health", { enabled: false, intervalSecond: 30 }, "intervalSecond"],
      ["PUT", "/api/admin/origin", { enabled: false, origin: "https://x.test" }, "origin"],
      ["PUT", "/api/admin/join-guards", { shadowline: true }, "shadowline"],
      ["PUT", "/api/admin/crawlers", { crawler: "pass" }, "crawler"],
    ];
    for (const [method, path, body, field] of writes) {
      const res = await admin.req(method, path, body);
      assertEquals(res.status, 400, `${method} ${path} ${JSON.stringify(body)}: ${res.text}`);
      assertEquals(res.json.error.code, "bad_request");
      assert(
        said(res).includes(`unknown field \\"${field}\\"`),
        `${path} names ${field}: ${res.text}`,
      );
      assert(said(res).includes("allowed: "), `${path} says what is allowed: ${res.text}`);
    }
    const after = await settingsOf(admin);
    assertEquals(after, before, "refused writes changed nothing");

    // The operator API (bearer) refuses them the same way.
    const op = { ...operator(t.config), "content-type": "application/json" };
    for (
      const [path, body, field] of [
        ["/admit", { queue: "default", count: 3, cout: 9 }, "cout"],
        ["/pause", { queue: "default", paused: true, pause: true }, "pause"],
        ["/mode", { queue: "default", mode: "lottery", modes: "queue" }, "modes"],
      ] as const
    ) {
      const res = await t.app.request(path, {
        method: "POST",
        headers: op,
        body: JSON.stringify(body),
      });
      const text = await res.text();
      assertEquals(res.status, 400, `${path}: ${text}`);
      assert(text.includes(`unknown field \\"${field}\\"`), `${path} names ${field}: ${text}`);
    }
    const m = await t.engine.metrics("default");
    assertEquals([m.paused, m.admissionMode], [false, "queue"], "the operator API changed nothing");
  } finally {
    t.close();
  }
});

Deno.test("a body sent without a JSON content type is told which header to send", async () => {
  const t = await makeApp();
  try {
    const { client: admin } = await adminClient(t);
    // What `curl -d '{...}'` sends when the operator forgets -H 'content-type: application/json'.
    const form = { "content-type": "application/x-www-form-urlencoded" };
    const rate = await admin.req("PUT", "/api/admin/rate", '{"admitPerSecond":5}', form);
    assertEquals(rate.status, 400, rate.text);
    assertEquals(rate.json.error.code, "bad_request");
    assert(
      rate.json.error.message.includes("Content-Type: application/json") &&
        rate.json.error.message.includes("application/x-www-form-urlencoded"),
      rate.text,
    );
    const pause = await t.app.request("/pause", {
      method: "POST",
      headers: operator(t.config),
      body: '{"queue":"default","paused":true}',
    });
    const text = await pause.text();
    assertEquals(pause.status, 400, text);
    assert(text.includes("Content-Type: application/json"), text);
    assertEquals((await t.engine.metrics("default")).paused, false, "nothing changed");
  } finally {
    t.close();
  }
});

Deno.test("a number out of range is told the field's own bound; a fraction, that it must be whole", async () => {
  const t = await makeApp();
  try {
    const { client: admin } = await adminClient(t);
    const cases: [string, string, Record<string, unknown>, string, RegExp][] = [
      ["PUT", "/api/admin/schedule", { opensAt: 1e20 }, "opensAt", /<=8640000000000000/],
      ["PUT", "/api/admin/capacity", { capacity: 1e300 }, "capacity", /<=10000000/],
      ["POST", "/api/admin/priority-codes", { lane: "x", count: -1e300 }, "count", />=1/],
      ["PUT", "/api/admin/capacity", { capacity: 2.5 }, "capacity", /whole number/],
      [
        "PUT",
        "/api/admin/room",
        { mode: "reject", retryAfterSeconds: 30.5 },
        "retryAfterSeconds",
        /whole number/,
      ],
    ];
    for (const [method, path, body, field, words] of cases) {
      const res = await admin.req(method, path, body);
      assertEquals(res.status, 400, `${path} ${JSON.stringify(body)}: ${res.text}`);
      const fields = res.json.error.details.fields as { path: string; message: string }[];
      const mine = fields.filter((f) => f.path === field);
      assertEquals(mine.length, 1, `one problem said of ${field}: ${res.text}`);
      assert(words.test(mine[0].message), `${field}: ${mine[0].message}`);
      assert(!/9007199254740991/.test(res.text), `no safe-integer bound: ${res.text}`);
      assert(res.json.error.message.startsWith(`invalid request body: ${field}: `), res.text);
    }
  } finally {
    t.close();
  }
});
