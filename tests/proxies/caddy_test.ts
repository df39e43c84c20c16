/**
 * docs/examples/Caddyfile run by Debian's Caddy (forward_auth) in front of a real Tollgate and a
 * small site on loopback.
 */
import { assert } from "../assert.ts";
import { CADDY, missing, startCaddy } from "./procs.ts";
import { failOpenScenario, forwardAuthScenario } from "./scenario.ts";

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
  fn: () =>
    failOpenScenario((ports) => {
      // The switch as the file's comment gives it: the handle_errors body becomes the commented
      // reverse_proxy block.
      const raw = Deno.readTextFileSync(new URL("../../docs/examples/Caddyfile", import.meta.url));
      const from = raw.indexOf("handle_errors {\n") + "handle_errors {\n".length;
      const body = raw.slice(from, raw.indexOf("\n\t}", from));
      const open = [...raw.matchAll(/^\t# {3}(.*)$/gm)].map((m) => `\t\t${m[1]}`).join("\n")
        .replace("127.0.0.1:3000", `127.0.0.1:${ports.site}`);
      assert(
        open.includes("reverse_proxy") && body.includes("respond"),
        "the switch is documented",
      );
      return startCaddy(ports, "Caddyfile", [[body, open]]);
    }),
});
