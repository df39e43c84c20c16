/**
 * A loopback OTLP/HTTP receiver (JSON encoding) for the OpenTelemetry tests: it keeps every span a
 * server process with `OTEL_DENO=true` sends it, attributes flattened.
 */

import { spawnServer } from "./server_procs.ts";

/** The TOKEN_SECRET of `otelServer`'s process. */
export const OTEL_SECRET = "otel-test-secret-otel-test-secret-0123";

/** A server process with Deno's OpenTelemetry on, exporting to `url` every 200 ms, plus `env`. */
export function otelServer(url: string, env: Record<string, string> = {}) {
  return spawnServer({
    TOKEN_SECRET: OTEL_SECRET,
    DENO_KV_PATH: ":memory:",
    OTEL_DENO: "true",
    OTEL_EXPORTER_OTLP_ENDPOINT: url,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    // Export every 200 ms instead of every few seconds, so the tests stay short.
    OTEL_BSP_SCHEDULE_DELAY: "200",
    OTEL_DENO_CONSOLE: "ignore",
    ...env,
  });
}

/** One OTLP span as the JSON encoding carries it, attributes flattened. */
export interface Span {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Record<string, string | number | boolean>;
}

type OtlpValue = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
};

/** Flattens OTLP's `[{key, value: {stringValue|intValue|doubleValue|boolValue}}]`. */
function attributesOf(list: { key: string; value: OtlpValue }[] = []) {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of list) {
    const n = value.intValue !== undefined ? Number(value.intValue) : value.doubleValue;
    out[key] = value.stringValue ?? n ?? value.boolValue ?? "";
  }
  return out;
}

/** A loopback OTLP/HTTP receiver (JSON encoding) that keeps every span it is sent. */
export function receiver() {
  const spans: Span[] = [];
  const services = new Set<string>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const path = new URL(req.url).pathname;
    const body = await req.text();
    if (path === "/v1/traces") {
      for (const rs of JSON.parse(body).resourceSpans ?? []) {
        services.add(String(attributesOf(rs.resource?.attributes)["service.name"]));
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({
              name: s.name,
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId || undefined,
              attributes: attributesOf(s.attributes),
            });
          }
        }
      }
    }
    return Response.json({});
  });
  return { spans, services, server, url: `http://127.0.0.1:${server.addr.port}` };
}
