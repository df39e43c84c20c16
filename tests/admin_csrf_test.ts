import { openApiDocument } from "../app.ts";
import { AdminClient, adminClient } from "./admin_helpers.ts";
import { assert, assertEquals } from "./assert.ts";
import { makeApp } from "./helpers.ts";

/** Every session-protected operation of the contract, as [METHOD, path with ids filled]. */
function sessionOperations(t: { hono: unknown }, writesOnly: boolean): [string, string][] {
  // deno-lint-ignore no-explicit-any
  const doc = openApiDocument(t.hono as any) as { paths: Record<string, Record<string, any>> };
  const out: [string, string][] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const session = (op.security ?? []).some((s: Record<string, unknown>) => "adminSession" in s);
      if (session && !(writesOnly && method === "get")) {
        out.push([method.toUpperCase(), path.replace(/\{(\w+)\}/g, "x")]);
      }
    }
  }
  return out;
}

Deno.test("every admin-session operation answers 401 to a caller without a session", async () => {
  const t = await makeApp();
  const ops = sessionOperations(t, false);
  assert(ops.length >= 29, `found ${ops.length} session operations`);
  for (const [method, url] of ops) {
    const r = await new AdminClient(t.app).req(method, url, method === "GET" ? undefined : {});
    assertEquals([r.status, r.json?.error?.code], [401, "unauthorized"], `${method} ${url}`);
  }
  t.close();
});

// Every session-protected write in the contract, whatever route module mounts it, refuses a
// foreign or missing Origin before doing anything, so a route added later without the
// middleware fails here.
Deno.test("CSRF: every admin-session write refuses a foreign or missing Origin", async () => {
  const t = await makeApp();
  const { client } = await adminClient(t);
  const writes = sessionOperations(t, true);
  assert(writes.length >= 19, `found ${writes.length} session writes`);
  const before = JSON.stringify(await Array.fromAsync(t.kv.list({ prefix: [] })));
  for (const [method, url] of writes) {
    for (const origin of ["https://evil.example", "null"]) {
      const r = await client.req(method, url, {}, { origin });
      assertEquals(
        [r.status, r.json?.error?.code],
        [403, "forbidden"],
        `${method} ${url} ${origin}`,
      );
    }
    // Without any Origin header (the client adds one unless told otherwise): also refused.
    const bare = await client.req(method, url, {}, { origin: "" });
    assertEquals(bare.status, 403, `${method} ${url} without Origin`);
  }
  const after = JSON.stringify(await Array.fromAsync(t.kv.list({ prefix: [] })));
  assertEquals(after, before, "no refused write changed the store");
  t.close();
});
