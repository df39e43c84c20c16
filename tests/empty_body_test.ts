/**
 * An empty body sent with `Content-Type: application/json` (what many HTTP clients do on every
 * call) reads as `{}`: the calls whose body the contract marks optional work as documented, and a
 * call that needs a body names its missing fields instead of "Malformed JSON in request body".
 * Over a real loopback server, so the runtime's own reading of an empty request is what is tested.
 */
import { assert, assertEquals } from "./assert.ts";
import { adminClient, TEST_ORIGIN } from "./admin_helpers.ts";
import { makeApp } from "./helpers.ts";

Deno.test("empty JSON bodies: optional bodies are absent, required ones name their fields", async () => {
  const t = await makeApp();
  const { client } = await adminClient(t);
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, t.fetch);
  const base = `http://127.0.0.1:${server.addr.port}`;
  const cookie = `tg_admin=${client.cookies.get("tg_admin")}`;
  // `body: ""` sends Content-Length: 0; no body at all sends none.
  const call = async (method: string, path: string, body: "" | undefined, auth: "admin" | "op") => {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (auth === "admin") Object.assign(headers, { cookie, origin: base });
    else headers.authorization = `Bearer ${t.config.TOKEN_SECRET}`;
    const res = await fetch(base + path, { method, headers, body });
    return { status: res.status, json: await res.json() };
  };
  try {
    for (const body of ["", undefined] as const) {
      const test = await call("POST", "/api/admin/webhooks/test", body, "admin");
      assertEquals([test.status, test.json], [200, {
        delivered: false,
        error: "no webhook URL configured",
      }]);
      const pass = await call("POST", "/api/admin/pass", body, "admin");
      assertEquals([pass.status, pass.json.queue], [200, "default"]);
      for (
        const [path, auth, field] of [
          ["/admit", "op", "queue"],
          ["/join", "op", "queue"],
          ["/api/admin/queues", "admin", "name"],
        ] as const
      ) {
        const r = await call("POST", path, body, auth);
        assertEquals(r.status, 400, path);
        assertEquals(r.json.error.code, "bad_request");
        assert(!/malformed/i.test(r.json.error.message), `${path}: ${r.json.error.message}`);
        assertEquals(r.json.error.details.fields[0].path, field, path);
      }
    }
    // A body that is really malformed is still said to be.
    const bad = await fetch(base + "/admit", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${t.config.TOKEN_SECRET}`,
        origin: TEST_ORIGIN,
      },
      body: "{",
    });
    assertEquals((await bad.json()).error.message, "Malformed JSON in request body");
  } finally {
    await server.shutdown();
    t.close();
  }
});
