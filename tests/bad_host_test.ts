/**
 * A `Host` header that is no host (`a b`, `%`, a port past 65535) makes a request URL nothing can
 * parse: a sweep got 500 and an error log line per request on the waiting page and "How it works"
 * (each parses its own URL). Any route that trips on it now answers 400 `bad_request`, and no
 * error line is logged for it (a flood of them would bury real errors).
 */
import { testConfig } from "../lib/config.ts";
import { assert, assertEquals } from "./assert.ts";
import { serveApp } from "./live_app.ts";
import { rawRequest } from "./raw_http.ts";

Deno.test("a Host header that is no host is 400, never 500", async () => {
  const srv = await serveApp(testConfig({}), { autoTick: false });
  const logged: string[] = [];
  const error = console.error;
  console.error = (...a: unknown[]) => logged.push(a.join(" "));
  try {
    await srv.services.engine.setPaused("default", true); // the page is drawn, not a redirect
    for (const host of ["a b", "%", "a:99999", "[::1"]) {
      for (const path of ["/wait?queue=default", "/wait/how-it-works"]) {
        const r = await rawRequest(srv.base, "GET", path, host);
        assertEquals(r.status, 400, `Host ${host} ${path}: ${r.text}`);
        assert(r.text.includes('"bad_request"') && r.text.includes("Host"), r.text);
      }
    }
    assertEquals((await rawRequest(srv.base, "GET", "/wait/how-it-works")).status, 200);
    assertEquals(logged.filter((l) => l.includes('"level":"error"')), [], "no error logged");
  } finally {
    console.error = error;
    await srv.close();
  }
});
