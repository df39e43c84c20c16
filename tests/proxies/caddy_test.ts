/**
 * docs/examples/Caddyfile run by Debian's Caddy (forward_auth) in front of a real Tollgate and a
 * small site on loopback.
 */
import { assert, assertEquals } from "../assert.ts";
import { CADDY, missing, portsFor, startCaddy, startSite, startTollgate } from "./procs.ts";
import { forwardAuthScenario } from "./scenario.ts";

const skip = missing(CADDY);
if (skip) console.warn(`SKIPPED Caddy forward-auth tests: ${skip}`);

Deno.test({
  name: "Caddyfile: waiting room, admission, what the site receives, Tollgate down",
  ignore: skip !== null,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: (t) => forwardAuthScenario(t, (ports) => startCaddy(ports)),
});

Deno.test({
  name: "Caddyfile with its documented fail-open block: Tollgate down lets visitors through",
  ignore: skip !== null,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const site = startSite();
    const tg = await startTollgate(["default"]);
    // The switch as the file's comment gives it: the handle_errors body becomes the commented
    // reverse_proxy block.
    const raw = Deno.readTextFileSync(new URL("../../docs/examples/Caddyfile", import.meta.url));
    const from = raw.indexOf("handle_errors {\n") + "handle_errors {\n".length;
    const body = raw.slice(from, raw.indexOf("\n\t}", from));
    const open = [...raw.matchAll(/^\t# {3}(.*)$/gm)].map((m) => `\t\t${m[1]}`).join("\n")
      .replace("127.0.0.1:3000", `127.0.0.1:${site.port}`);
    assert(open.includes("reverse_proxy") && body.includes("respond"), "the switch is documented");
    const proxy = await startCaddy(portsFor(tg.port, site.port), "Caddyfile", [[body, open]]);
    try {
      const closed = await fetch(`${proxy.base}/shop`, { redirect: "manual" });
      await closed.body?.cancel();
      assertEquals(closed.status, 302, "while Tollgate is up, the line holds");
      await tg.close();
      const r = await fetch(`${proxy.base}/shop`, {
        headers: { "x-tollgate-visitor": "forged", "x-tollgate-queue": "vip" },
      });
      assertEquals(r.status, 200);
      assert((await r.text()).includes("site page /shop"));
      const hit = site.hits.at(-1)!;
      assertEquals(hit.headers.get("x-tollgate-visitor"), null);
      assertEquals(hit.headers.get("x-tollgate-queue"), null);
    } catch (e) {
      console.error(proxy.log().slice(-3000));
      throw e;
    } finally {
      await proxy.stop();
      await tg.close().catch(() => {});
      await site.close();
    }
  },
});
