/**
 * docs/examples/Caddyfile run by Debian's Caddy (forward_auth) in front of a real Tollgate and a
 * small site on loopback.
 */
import { CADDY, missing, startCaddy } from "./procs.ts";
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
