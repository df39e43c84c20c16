/**
 * Per-request accounting for the served `fetch`: one bounded route label per request (never the
 * raw path, which a visitor chooses), its status code and its duration.
 */
import { instanceMetrics } from "./instance.ts";
import type { HistogramSeries } from "./registry.ts";
import { nameServerSpan } from "./tracing.ts";

/** Paths answered as themselves: the label is the path without its slash. */
const EXACT = new Map<string, Route>(
  [
    "/join",
    "/status",
    "/heartbeat",
    "/enter",
    "/leave",
    "/verify",
    "/admit",
    "/mode",
    "/pause",
    "/metrics",
    "/health",
    "/wait",
    "/demo",
  ].map((p) => [p, [p.slice(1), p]]),
);
/** Path families, first match wins. */
const PREFIXES: [string, Route][] = (
  [
    ["/api/admin/", "admin_api"],
    ["/verify/", "verify"],
    ["/wait/", "wait"],
    ["/static/", "static"],
    ["/admin", "admin_page"],
    ["/api/cost-estimate", "cost"],
    ["/openapi.json", "openapi"],
  ] as const
).map(([prefix, label]) => [prefix, [label, prefix + "*"]]);
const OTHER: Route = ["other", ""];
const ORIGIN: Route = ["origin", ""];

/** A route's label, and its name on a span (`/api/admin/*` for a family; empty: not named). */
type Route = [label: string, pattern: string];

/** The route of a path: a fixed label, or `other` for anything unknown. */
function routeOf(path: string): Route {
  const exact = EXACT.get(path);
  if (exact) return exact;
  for (const [prefix, route] of PREFIXES) if (path.startsWith(prefix)) return route;
  return OTHER;
}

/** The path of a request URL, without scheme, host or query. */
export function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const q = url.indexOf("?", start);
  return q < 0 ? url.slice(start) : url.slice(start, q);
}

/** A route's series, kept so a request costs no label joining or string building. */
interface RouteCells {
  codes: Map<number, { n: number } | undefined>;
  seconds: HistogramSeries | undefined;
}
const cells = new Map<string, RouteCells>();

function cellsOf(route: string): RouteCells {
  let c = cells.get(route);
  if (!c) {
    c = { codes: new Map(), seconds: instanceMetrics.requestSeconds.cell([route]) };
    cells.set(route, c);
  }
  return c;
}

/**
 * Counts one answered request; `proxied` marks the protected origin's answers (route `origin`);
 * `path`, when the caller knows it already (the status fast path), saves reading the URL again.
 * With tracing on, the request's server span is named after the route too.
 */
export function observeRequest(
  req: Request,
  status: number,
  ms: number,
  proxied: boolean,
  path?: string,
): void {
  const [route, pattern] = proxied ? ORIGIN : routeOf(path ?? pathOf(req.url));
  const c = cellsOf(route);
  let code = c.codes.get(status);
  if (code === undefined && !c.codes.has(status)) {
    code = instanceMetrics.requests.cell([route, String(status)]);
    c.codes.set(status, code);
  }
  if (code) code.n++;
  if (c.seconds) instanceMetrics.requestSeconds.record(c.seconds, ms / 1000);
  if (pattern) nameServerSpan(req, pattern);
}
