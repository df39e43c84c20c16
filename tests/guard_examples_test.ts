/**
 * The documented examples run as a user runs them: docs/examples/pow_join.ts against a real
 * server over loopback (the solve loop), and the enqueue-token signers (Deno, and Node.js when
 * installed) produce tokens the service accepts.
 */
import { testConfig } from "../lib/config.ts";
import { EnqueueTokens } from "../lib/guard/enqueue.ts";
import { writeJoinGuards } from "../lib/guard/settings.ts";
import { assert, assertEquals } from "./assert.ts";
import { serveApp } from "./live_app.ts";

const ENQUEUE_SECRET = "enqueue-secret-enqueue-secret-0123456789";

async function run(cmd: string, args: string[], env: Record<string, string> = {}) {
  const out = await new Deno.Command(cmd, { args, env, stdout: "piped", stderr: "piped" })
    .output();
  const text = new TextDecoder().decode(out.stdout);
  assert(out.success, `${cmd} ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  return text.trim();
}

Deno.test({
  name: "docs/examples/pow_join.ts solves the challenge and joins a real server",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const srv = await serveApp(testConfig({ QUEUES: ["default"] }), { autoTick: false });
    try {
      await writeJoinGuards(srv.kv, "default", { challenge: "on", difficulty: 20_000 });
      const out = JSON.parse(
        await run(Deno.execPath(), [
          "run",
          "--allow-net",
          "docs/examples/pow_join.ts",
          srv.base,
          "default",
        ]),
      );
      assertEquals([out.httpStatus, out.status], [200, "admitted"]);
      assert(typeof out.ticket === "string" && out.ticket.includes("."));
      assertEquals((await srv.services.guards.stats.lastHour("default")).challengesSolved, 1);
    } finally {
      await srv.services.guards.stats.idle();
      await srv.close();
    }
  },
});

Deno.test("the enqueue-token examples sign tokens the service accepts", async () => {
  const tokens = new EnqueueTokens(ENQUEUE_SECRET);
  const env = { ENQUEUE_SECRET };
  const outputs = [
    await run(Deno.execPath(), [
      "run",
      "--allow-env",
      "docs/examples/enqueue_token.ts",
      "shop",
      "ann",
    ], env),
  ];
  const node = await new Deno.Command("node", { args: ["--version"], stdout: "null" }).output()
    .then((o) => o.success, () => false);
  if (node) {
    outputs.push(await run("node", ["docs/examples/enqueue_token.mjs", "shop", "ann"], env));
  }
  for (const line of outputs) {
    const token = new URLSearchParams(line.slice(1)).get("enqueueToken")!;
    const claims = tokens.verify(token, "shop", Date.now());
    assertEquals(claims.key, "ann");
  }
});
