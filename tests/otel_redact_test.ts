/**
 * With OpenTelemetry on, Deno's server span records the request URL: a sweep found
 * `?accessToken=`, resume codes and admin invite tokens in `url.full` and `url.query` at the
 * collector. They arrive redacted now (values `REDACTED`, the queue name kept).
 */
import { assert, assertEquals } from "./assert.ts";
import { otelServer, receiver } from "./otlp_receiver.ts";
import { sleep, stopServers, waitReady } from "./server_procs.ts";
import { redactQuery } from "../lib/metrics/tracing.ts";

Deno.test("redactQuery keeps plain parameters and redacts every other value", () => {
  assertEquals(
    redactQuery("queue=default&resume=K7PXM2QD&lang=de&flag"),
    "queue=default&resume=REDACTED&lang=de&flag",
  );
  assertEquals(redactQuery("accessToken=a.b&code=X"), "accessToken=REDACTED&code=REDACTED");
});

Deno.test({
  name: "OTel on: no query-string credential reaches the collector",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const otlp = receiver();
    const s = otelServer(otlp.url);
    const paths = [
      "/verify?accessToken=SECRET-ACCESS",
      "/wait?queue=default&resume=SECRET-RESUME",
      "/admin?invite=SECRET-INVITE",
      "/nosuch?token=SECRET-OTHER",
    ];
    try {
      await waitReady(s);
      for (const p of paths) await (await fetch(`http://127.0.0.1:${s.port}${p}`)).body?.cancel();
      const served = () => otlp.spans.filter((x) => typeof x.attributes["url.full"] === "string");
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline && served().length < paths.length + 1) await sleep(200);
      assert(served().length >= paths.length, JSON.stringify(otlp.spans.map((x) => x.name)));
      const all = JSON.stringify(otlp.spans);
      assert(!all.includes("SECRET-"), all.slice(0, 3000));
      const wait = served().find((x) => x.attributes["url.path"] === "/wait")!;
      assertEquals(wait.attributes["url.query"], "queue=default&resume=REDACTED");
    } finally {
      await stopServers([s]);
      await otlp.server.shutdown();
    }
  },
});
