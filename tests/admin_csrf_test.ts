import { openApiDocument } from "../app.ts";
import { adminClient } from "./admin_helpers.ts";
import { assert, assertEquals } from "./assert.ts";
import { makeApp } from "./helpers.ts";

// Every session-protected write in the contract, whatever route module mounts it, refuses a
// foreign or missing Origin before doing anything, so a route added later without the
// middleware fails here.
Deno.test("CSRF: every admin-session write refuses a foreign or missing Origin", async () => {
  const t = await makeApp();
  const { client } = await adminClient(t);
  // deno-lint-ignore no-explicit-any
  const doc = openApiDocument(t.app as any) as { paths: Record<string, Record<string, any>> };
  const writes: [string, string][] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const session = (op.security ?? []).some((s: Record<string, unknown>) => "adminSession" in s);
      if (session && method !== "get") writes.push([method.toUpperCase(), path]);
    }
  }
  assert(writes.length >= 19, `found ${writes.length} session writes`);
  const before = JSON.stringify(await Array.fromAsync(t.kv.list({ prefix: [] })));
  for (const [method, path] of writes) {
    const url = path.replace(/\{(\w+)\}/g, "x");
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
