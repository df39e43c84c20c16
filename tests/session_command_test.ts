/**
 * `Tollgate-Command` with several values: a comma-separated list, or the header sent twice (which
 * arrives as one list), is honoured value by value; an unknown value is refused with a log line
 * (once a minute per value) and the header never reaches the visitor. Before, anything but the
 * single value `release` was ignored, silently.
 */
import { assert, assertEquals } from "./assert.ts";
import { consoleLines } from "./helpers.ts";
import { startOrigin } from "./origin_helpers.ts";
import { admittedVisitor, countedApp, record, verify } from "./session_helpers.ts";

/** Runs `f` with the console captured; the JSON lines written (warnings among them). */
async function warnings(f: () => Promise<void>): Promise<Record<string, unknown>[]> {
  return (await consoleLines(f)).map((l) => JSON.parse(l));
}

/** An origin answering each path with the command headers the test names. */
function commandOrigin() {
  return startOrigin((_req, url) => {
    const h = new Headers();
    if (url.pathname === "/twice") {
      h.append("Tollgate-Command", "release");
      h.append("Tollgate-Command", "release");
    }
    if (url.pathname === "/list") h.set("Tollgate-Command", " Release , flush-cache");
    if (url.pathname === "/unknown") h.set("Tollgate-Command", "flush-cache, ,logout");
    return url.pathname === "/plain" ? null : new Response("ok", { headers: h });
  });
}

Deno.test("Tollgate-Command: repeated and listed values are honoured, unknown ones refused and logged", async () => {
  const origin = commandOrigin();
  const { t } = await countedApp({ ORIGIN_URL: origin.url, CAPACITY: 5 });
  try {
    // Unknown values only: nothing ends, each is logged once, the header is taken out.
    const kept = await admittedVisitor(t);
    const logged = await warnings(async () => {
      for (let i = 0; i < 2; i++) {
        const res = await kept.client.req("GET", "/unknown");
        assertEquals([res.status, res.headers.get("tollgate-command")], [200, null]);
      }
    });
    assertEquals(logged.map((l) => [l.msg, l.value]), [
      ["unknown Tollgate-Command value refused", "flush-cache"],
      ["unknown Tollgate-Command value refused", "logout"],
    ]);
    assertEquals(logged[0].known, ["release"]);
    assert(await record(t, kept.id), "not released by unknown commands");
    assertEquals((await verify(t, kept.token)).status, 204);

    // The header sent twice, and a list with an unknown value beside `release`: released.
    for (const path of ["/twice", "/list"]) {
      const v = await admittedVisitor(t);
      const res = await v.client.req("GET", path);
      assertEquals([res.status, res.headers.get("tollgate-command")], [200, null], path);
      assert(res.headers.getSetCookie().some((c) => /^tg_access=;.*Max-Age=0/.test(c)), path);
      assertEquals(await record(t, v.id), null, `${path}: freed`);
      assertEquals((await verify(t, v.token)).status, 401, `${path}: token refused`);
    }
    // A minute later an unknown value is logged again.
    t.clock.advance(60_000);
    const again = await warnings(async () => {
      await kept.client.req("GET", "/unknown");
    });
    assertEquals(again.length, 2);
  } finally {
    await origin.close();
    t.close();
  }
});
