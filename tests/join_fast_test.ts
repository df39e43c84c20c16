import { assert, assertEquals } from "./assert.ts";
import type { Config } from "../lib/config.ts";
import { sameAnswer, servedApp } from "./access_helpers.ts";

/**
 * Two identical services (same seed, clock and secret): one answers through the server's
 * `fetch` (the `/join` fast path), the other through Hono's `app.request()`. Every request is
 * sent to both and the answers must match byte for byte: status, body, every header, cookies.
 */
async function twins(overrides: Partial<Config> = {}) {
  const fast = await servedApp(overrides), hono = await servedApp(overrides);
  // Counts what the fast path hands on to Hono (its own answers never reach `app.fetch`).
  let fellThrough = 0;
  const honoFetch = fast.app.fetch;
  fast.app.fetch = (req, ...rest) => {
    fellThrough++;
    return honoFetch(req, ...rest);
  };
  async function send(
    init: {
      url?: string;
      method?: string;
      body?: BodyInit | (() => BodyInit);
      headers?: Record<string, string>;
    },
  ) {
    const url = init.url ?? "http://x/join";
    const req = () =>
      new Request(url, {
        method: init.method ?? "POST",
        headers: init.headers ?? { "content-type": "application/json" },
        body: typeof init.body === "function" ? init.body() : init.body,
      });
    const before = fellThrough;
    const a = await fast.fetch(req());
    const { status, text } = await sameAnswer(a, await hono.app.request(req()), `of ${init.body}`);
    return { status, text, res: a, fast: fellThrough === before };
  }
  const json = (body: unknown, headers: Record<string, string> = {}) => ({
    body: typeof body === "string" ? body : JSON.stringify(body),
    headers: { "content-type": "application/json", ...headers },
  });
  const ticketOf = (r: Response) =>
    /tg_ticket=([^;]+)/.exec(r.headers.getSetCookie().join("\n"))?.[1] ?? "";
  const close = () => {
    fast.kv.close();
    hono.kv.close();
  };
  return { fast, hono, send, json, ticketOf, close };
}

Deno.test("fast /join answers new joins, supplied ids and resumes exactly like Hono", async () => {
  const t = await twins();
  // The first visitor is admitted at once (200, tg_access too); the next ones wait (202).
  const first = await t.send(t.json({ queue: "default" }));
  assertEquals([first.status, first.fast], [200, true]);
  assertEquals(first.res.headers.getSetCookie().length, 2);
  const second = await t.send(t.json({ queue: "default" }));
  assertEquals([second.status, second.fast], [202, true]);
  const supplied = await t.send(t.json({ queue: "default", visitorId: "visitor_0001" }));
  assertEquals([supplied.status, supplied.fast], [202, true]);
  assertEquals(JSON.parse(supplied.text).visitorId, "visitor_0001");
  // The same id again without its ticket is a takeover attempt.
  const taken = await t.send(t.json({ queue: "default", visitorId: "visitor_0001" }));
  assertEquals([taken.status, JSON.parse(taken.text).error.code], [401, "unauthorized"]);
  // Resume by ticket: a conflicting body id is ignored.
  const cookie = `tg_ticket=${t.ticketOf(second.res)}`;
  const resumed = await t.send(
    t.json({ queue: "default", visitorId: "someone_else" }, { cookie }),
  );
  assertEquals([resumed.status, resumed.fast], [202, true]);
  assertEquals(JSON.parse(resumed.text).visitorId, JSON.parse(second.text).visitorId);
  // Extra keys are stripped, a charset and any case of the JSON type are fine, a query too.
  assertEquals((await t.send(t.json({ queue: "default", extra: [1] }))).fast, true);
  const typed = await t.send(
    t.json({ queue: "default" }, { "content-type": "application/json; charset=utf-8" }),
  );
  assertEquals([typed.status, typed.fast], [202, true]);
  assertEquals(
    (await t.send({ ...t.json({ queue: "default" }), url: "http://x/join?utm=1" })).fast,
    true,
  );
  // A forged ticket, or one for another queue, is no ticket: a new visitor.
  assertEquals(
    (await t.send(t.json({ queue: "default" }, { cookie: "tg_ticket=a.b" }))).status,
    202,
  );
  t.close();
});

Deno.test("fast /join sets Secure cookies over https and behind a TLS proxy, like Hono", async () => {
  const t = await twins();
  const direct = await t.send({ ...t.json({ queue: "default" }), url: "https://x/join" });
  assert(direct.res.headers.getSetCookie().every((c) => c.includes("; Secure")));
  const proxied = await t.send(t.json({ queue: "default" }, { "x-forwarded-proto": "https" }));
  assert(proxied.res.headers.getSetCookie().every((c) => c.includes("; Secure")));
  const plain = await t.send(t.json({ queue: "default" }));
  assert(plain.res.headers.getSetCookie().every((c) => !c.includes("Secure")));
  t.close();
});

Deno.test("fast /join gives every bad input Hono's exact envelope", async () => {
  const t = await twins();
  const bad: [unknown, number][] = [
    ["{", 400],
    ["", 400],
    ["[]", 400],
    ["null", 400],
    ["42", 400],
    [{}, 400],
    [{ queue: "Bad!" }, 400],
    [{ queue: 7 }, 400],
    [{ queue: "default", visitorId: "x" }, 400],
    [{ queue: "default", visitorId: null }, 400],
    [{ queue: "default", visitorId: "bad id with spaces" }, 400],
  ];
  for (const [body, status] of bad) {
    const r = await t.send(t.json(body));
    assertEquals(r.status, status, String(body));
    assertEquals(JSON.parse(r.text).error.code, "bad_request");
    assert(JSON.parse(r.text).error.details.fields.length > 0, `fields for ${body}`);
  }
  const unknown = await t.send(t.json({ queue: "nope" }));
  assertEquals([unknown.status, JSON.parse(unknown.text).error.code], [404, "unknown_queue"]);
  // Other content types, none, and other methods go to Hono as they are (and get its answer,
  // which `send` compares).
  type Init = Parameters<typeof t.send>[0];
  const other: Init[] = [
    { body: '{"queue":"default"}', headers: { "content-type": "text/plain" } },
    { body: '{"queue":"default"}', headers: {} },
    { body: '{"queue":"default"}', headers: { "content-type": "application/vnd.x+json" } },
    { method: "GET", headers: {} },
    { url: "http://x/join/", ...t.json({ queue: "default" }) },
  ];
  for (const init of other) {
    assertEquals((await t.send(init)).fast, false, `${init.body} ${JSON.stringify(init.headers)}`);
  }
  t.close();
});

Deno.test("fast /join keeps the 64 KiB body limit, declared or streamed", async () => {
  const t = await twins();
  const big = JSON.stringify({ queue: "default", pad: "x".repeat(70_000) });
  const declared = await t.send(
    t.json(big, { "content-length": String(new TextEncoder().encode(big).length) }),
  );
  assertEquals([declared.status, JSON.parse(declared.text).error.code], [413, "payload_too_large"]);
  const streamed = await t.send({
    ...t.json(""),
    body: () => new Blob([big]).stream(),
  });
  assertEquals([streamed.status, JSON.parse(streamed.text).error.code], [413, "payload_too_large"]);
  // Just under the limit is a normal join.
  const fits = JSON.stringify({ queue: "default", pad: "x".repeat(60_000) });
  assertEquals((await t.send(t.json(fits))).status, 200);
  t.close();
});

Deno.test("fast /join answers 503 queue_full at the waiting cap, like Hono", async () => {
  const t = await twins({ MAX_WAITING_VISITORS: 2 });
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) statuses.push((await t.send(t.json({ queue: "default" }))).status);
  // The first is admitted at once; two wait; the cap turns the next away.
  assertEquals(statuses, [200, 202, 202, 503]);
  const full = await t.send(t.json({ queue: "default" }));
  assertEquals(JSON.parse(full.text).error.code, "queue_full");
  t.close();
});
