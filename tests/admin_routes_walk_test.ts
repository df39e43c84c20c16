/**
 * Admin auth is on by default: every operation under /api/admin in the contract answers 401 to a
 * caller without a session, except the explicitly listed ones; a path nobody wrote a route for is
 * no public door either.
 */
import { openApiDocument } from "../app.ts";
import { NO_SESSION_ROUTES } from "../routes/admin/index.ts";
import { assert, assertEquals } from "./assert.ts";
import { makeApp } from "./helpers.ts";

Deno.test("admin routes: a session is required everywhere but the listed exceptions", async () => {
  const t = await makeApp();
  const doc = openApiDocument(t.hono) as unknown as {
    paths: Record<string, Record<string, unknown>>;
  };
  const listed = new Set(NO_SESSION_ROUTES.map((r) => `${r.method} ${r.path}`));
  const seen = new Set<string>();
  let walked = 0;
  for (const [path, ops] of Object.entries(doc.paths)) {
    if (!path.startsWith("/api/admin")) continue;
    for (const method of Object.keys(ops)) {
      const op = `${method.toUpperCase()} ${path}`;
      walked++;
      const res = await t.app.request(path.replace(/\{(\w+)\}/g, "x"), {
        method: method.toUpperCase(),
        headers: { origin: "http://localhost", "content-type": "application/json" },
        body: method === "get" || method === "delete" ? undefined : "{}",
      });
      await res.body?.cancel();
      if (listed.has(op)) {
        seen.add(op);
        continue;
      }
      assertEquals(res.status, 401, `${op} without a session`);
    }
  }
  assert(walked > 40, `walked ${walked} admin operations`);
  assertEquals([...listed].filter((op) => !seen.has(op)), [], "every exception is a real route");
  for (const path of ["/api/admin/not-a-route", "/api/admin/users/x/y"]) {
    const res = await t.app.request(path, { method: "GET" });
    assertEquals(res.status, 401, `${path}: no public door`);
  }
  t.close();
});
