/**
 * TRACE and TRACK over a real socket (no `Request` can be made with them, so only a served
 * request shows the fault): a sweep got 500 and an error log line for every one on the service's
 * own paths, and a false "origin unavailable" through the origin proxy. Now 405 in the envelope.
 */
import { testConfig } from "../lib/config.ts";
import { assert, assertEquals } from "./assert.ts";
import { serveApp } from "./live_app.ts";
import { rawRequest as raw } from "./raw_http.ts";

Deno.test("TRACE and TRACK are 405 on every kind of path, never 500", async () => {
  for (const config of [testConfig({}), testConfig({ BASE_PATH: "/_tollgate" })]) {
    const srv = await serveApp(config, { autoTick: false });
    const base = config.BASE_PATH ?? "";
    try {
      for (const method of ["TRACE", "TRACK"]) {
        for (const path of ["/health", "/join", "/api/admin/state", "/wait", "/verify", "/x"]) {
          const r = await raw(srv.base, method, base + path);
          assertEquals(r.status, 405, `${method} ${base}${path}: ${r.text}`);
          assert(r.text.includes('"method_not_allowed"'), r.text);
          assert(/\r\nallow: GET/i.test(r.text), r.text);
        }
      }
      // Other methods are unchanged.
      assertEquals((await raw(srv.base, "GET", `${base}/health`)).status, 200);
    } finally {
      await srv.close();
    }
  }
});
