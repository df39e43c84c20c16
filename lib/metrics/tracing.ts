/**
 * OpenTelemetry spans of the service's own work (joins, status checks, ticks, KV commits). Deno's
 * built-in OpenTelemetry (`OTEL_DENO=true`) registers itself with `@opentelemetry/api` and
 * exports over OTLP. Without it nothing is registered and these functions skip the API altogether:
 * its no-op spans still went through a context manager per call, a few percent of a status
 * answer. Attribute names carry a `tollgate.` prefix.
 */
import {
  type Attributes,
  INVALID_SPAN_CONTEXT,
  type Span,
  SpanStatusCode,
  trace,
  type Tracer,
} from "@opentelemetry/api";
import { AppError } from "../errors.ts";
import { VERSION } from "../version.ts";

let tracer: Tracer | undefined;
let on: boolean | undefined;

/**
 * True when a tracer provider is registered with the API (Deno's, under `OTEL_DENO=true`: it
 * registers at start-up, before any of this runs). The API keeps its providers on this global.
 */
export function tracingOn(): boolean {
  return on ??= (globalThis as Record<symbol, { trace?: unknown } | undefined>)[
    Symbol.for("opentelemetry.js.api.1")
  ]?.trace !== undefined;
}

/** What `traced` hands its step while tracing is off: a span that records nothing. */
const OFF_SPAN = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/** The service's tracer (made on first use, never at import). */
function tracerOf(): Tracer {
  return tracer ??= trace.getTracer("tollgate", VERSION);
}

/** What an error says about an outcome: its error code, or `error` for anything unexpected. */
export function outcomeOf(e: unknown): string {
  return e instanceof AppError ? e.code : "error";
}

/** Ends `span` after `e`: an expected refusal keeps an unset status, anything else is an error. */
function endWithError(span: Span, e: unknown): void {
  span.setAttribute("tollgate.outcome", outcomeOf(e));
  if (!(e instanceof AppError) || e.status >= 500) {
    span.recordException(e instanceof Error ? e : String(e));
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

/** Options of a traced step. */
export interface TraceOptions {
  attributes?: Attributes;
  /** Start a new trace (background work a request only triggered, like a tick). */
  root?: boolean;
}

/**
 * Runs `fn` inside an active span named `name`; `fn` may add attributes. A thrown error sets
 * `tollgate.outcome` to its code and is thrown on.
 */
export function traced<T>(
  name: string,
  options: TraceOptions,
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  if (!tracingOn()) return fn(OFF_SPAN);
  return tracerOf().startActiveSpan(
    name,
    { attributes: options.attributes, root: options.root },
    async (span) => {
      try {
        const out = await fn(span);
        span.end();
        return out;
      } catch (e) {
        endWithError(span, e);
        throw e;
      }
    },
  );
}

/** A finished span for work done without an await (the in-memory status answer). */
export function spanNow(name: string, attributes: Attributes): void {
  if (!tracingOn()) return;
  tracerOf().startSpan(name, { attributes }).end();
}

/** Adds attributes to the active span (the KV commit span inside a commit's step). */
export function annotateSpan(attributes: Attributes): void {
  if (!tracingOn()) return;
  trace.getActiveSpan()?.setAttributes(attributes);
}

/** Query parameters whose values a span may show: none of them is a credential. */
const PLAIN_PARAMS = new Set(["queue", "lang", "embed", "preview", "return", "format"]);

/** `query` (without `?`) with every value outside `PLAIN_PARAMS` replaced by `REDACTED`. */
export function redactQuery(query: string): string {
  return query.split("&").map((pair) => {
    const eq = pair.indexOf("=");
    const name = eq < 0 ? pair : pair.slice(0, eq);
    if (eq < 0 || PLAIN_PARAMS.has(name)) return pair;
    return `${name}=REDACTED`;
  }).join("&");
}

/**
 * Takes the credentials out of the request's server span (Deno's, when tracing is on): Deno
 * records `url.full` and `url.query` as sent, which carry `?accessToken=`, resume and priority
 * codes and invite tokens to the telemetry backend. Values are replaced by `REDACTED` (the
 * OpenTelemetry convention), except a few plain ones (`queue`, `lang`, ...).
 */
export function redactServerSpan(req: { readonly url: string }): void {
  if (!tracingOn()) return;
  const url = req.url;
  const q = url.indexOf("?");
  if (q < 0) return;
  const span = trace.getActiveSpan();
  if (!span) return;
  const query = redactQuery(url.slice(q + 1));
  span.setAttributes({ "url.full": `${url.slice(0, q)}?${query}`, "url.query": query });
}

/**
 * Names the request's server span (Deno's, when tracing is on) after its route; the method is
 * read only then (every request calls this).
 */
export function nameServerSpan(req: { readonly method: string }, route: string): void {
  if (!tracingOn()) return;
  const span = trace.getActiveSpan();
  if (!span) return;
  span.setAttribute("http.route", route);
  span.updateName(`${req.method} ${route}`);
}
