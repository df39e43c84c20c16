/**
 * OpenTelemetry: a server process with Deno's built-in OpenTelemetry on (`OTEL_DENO=true` and the
 * standard `OTEL_EXPORTER_OTLP_*` variables) sends its spans to a small OTLP/HTTP receiver on
 * loopback; joins, status checks, ticks and KV commits arrive with their attributes.
 */
import { assert, assertEquals } from "./assert.ts";
import { sleep, stopServers, waitReady } from "./server_procs.ts";
import { OTEL_SECRET, otelServer, receiver } from "./otlp_receiver.ts";

Deno.test({
  name: "OTel on: join, status, tick and KV commit spans reach a loopback OTLP/HTTP receiver",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const otlp = receiver();
    const s = otelServer(otlp.url, {
      MAX_WAITING_VISITORS: "1",
      OTEL_SERVICE_NAME: "tollgate-otel-test",
    });
    const base = `http://127.0.0.1:${s.port}`;
    const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(base + path, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      });
    try {
      await waitReady(s);
      const first = await post("/join", { queue: "default" });
      assertEquals(first.status, 200, "admitted at once");
      await first.body?.cancel();
      const operator = { authorization: `Bearer ${OTEL_SECRET}` };
      await (await post("/pause", { queue: "default", paused: true }, operator)).body?.cancel();
      const waiting = await post("/join", { queue: "default" });
      assertEquals(waiting.status, 202);
      const ticket = /tg_ticket=([^;]+)/.exec(waiting.headers.get("set-cookie") ?? "")![1];
      await waiting.body?.cancel();
      // The cap counts the line as last read plus this instance's joins since; a view read again
      // meanwhile (a tick) could miss a join still in flight (within the cap's one-second slack).
      // The second join numbered first, the third is refused for sure.
      for (let i = 0; i < 50; i++) {
        const r = await fetch(`${base}/status?queue=default`, {
          headers: { cookie: `tg_ticket=${ticket}` },
        });
        if ((await r.json()).positionExact !== false) break;
        await sleep(100);
      }
      const full = await post("/join", { queue: "default" });
      assertEquals(full.status, 503, "the waiting-row cap of 1 refuses the third");
      await full.body?.cancel();
      const status = await fetch(`${base}/status?queue=default`, {
        headers: { cookie: `tg_ticket=${ticket}` },
      });
      assertEquals(status.status, 200);
      await status.body?.cancel();

      const find = (name: string, attrs: Record<string, unknown>) =>
        otlp.spans.filter((x) =>
          x.name === name && Object.entries(attrs).every(([k, v]) => x.attributes[k] === v)
        );
      const wanted: [string, Record<string, unknown>][] = [
        ["tollgate.join", { "tollgate.queue": "default", "tollgate.outcome": "admitted" }],
        ["tollgate.join", { "tollgate.queue": "default", "tollgate.outcome": "waiting" }],
        ["tollgate.join", { "tollgate.queue": "default", "tollgate.outcome": "queue_full" }],
        ["tollgate.status", { "tollgate.queue": "default", "tollgate.outcome": "waiting" }],
        ["tollgate.tick", { "tollgate.queue": "default", "tollgate.outcome": "ran" }],
        ["tollgate.kv.commit", {
          "tollgate.kv.op": "join",
          "tollgate.queue": "default",
          "tollgate.batch.size": 1,
          "tollgate.outcome": "committed",
        }],
        ["tollgate.kv.commit", { "tollgate.kv.op": "tick" }],
        ["POST /join", { "http.route": "/join" }],
        ["GET /status", { "http.route": "/status" }],
      ];
      const deadline = Date.now() + 20_000;
      while (Date.now() < deadline && wanted.some(([n, a]) => find(n, a).length === 0)) {
        await sleep(200);
      }
      for (const [name, attrs] of wanted) {
        assert(
          find(name, attrs).length > 0,
          `no ${name} span with ${JSON.stringify(attrs)}; got ${
            JSON.stringify(otlp.spans.map((x) => [x.name, x.attributes]).slice(-40))
          }`,
        );
      }
      assert(otlp.services.has("tollgate-otel-test"), [...otlp.services].join());
      // A join's span is a child of its request's server span, in the same trace.
      const join = find("tollgate.join", { "tollgate.outcome": "waiting" })[0];
      const parent = otlp.spans.find((x) => x.spanId === join.parentSpanId);
      assert(parent !== undefined, "the join span has its server span as parent");
      assertEquals(parent.name, "POST /join");
      assertEquals(parent.traceId, join.traceId);
      // The tick ran in the background: a trace of its own, with its commits inside it.
      const tick = find("tollgate.tick", { "tollgate.outcome": "ran" })[0];
      assertEquals(tick.parentSpanId, undefined);
      assertEquals(typeof tick.attributes["tollgate.tick.admitted"], "number");
      assert(
        otlp.spans.some((x) => x.name === "tollgate.kv.commit" && x.parentSpanId === tick.spanId),
        "the tick's commit is inside the tick's span",
      );
    } finally {
      await stopServers([s]);
      await otlp.server.shutdown();
    }
  },
});
