/**
 * Per-request accounting for the served `fetch`: one bounded route label per request (never the
 * raw path, which a visitor chooses), its status code and its duration.
 */
import { instanceMetrics } from "./instance.ts";
import { nameServerSpan } from "./tracing.ts";

/** Paths answered as themselves; the label is the path without its slash. */
const EXACT = new Map<string, string>(
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
  ].map((p) => [p, p.slice(1)]),
);
/** Path families, first match wins: [prefix, label]. */
const PREFIXES: [string, string][] = [
  ["/api/admin/", "admin_api"],
  ["/verify/", "verify"],
  ["/wait/", "wait"],
  ["/static/", "static"],
  ["/admin", "admin_page"],
  ["/api/cost-estimate", "cost"],
  ["/openapi.json", "openapi"],
];

/** The route label of a path: a fixed name, or `other` for anything unknown. */
export function routeLabel(path: string): string {
  return routeOf(path)[0];
}

/** The route label and the route as a span names it (`/api/admin/*` for a family). */
function routeOf(path: string): [string, string] {
  const exact = EXACT.get(path);
  if (exact) return [exact, path];
  for (const [prefix, label] of PREFIXES) if (path.startsWith(prefix)) return [label, prefix + "*"];
  return ["other", ""];
}

/** The path of a request URL, without scheme, host or query. */
export function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const q = url.indexOf("?", start);
  return q < 0 ? url.slice(start) : url.slice(start, q);
}

/**
 * Counts one answered request; `proxied` marks the protected origin's answers (route `origin`).
 * With tracing on, the request's server span is named after the route too.
 */
export function observeRequest(req: Request, status: number, ms: number, proxied: boolean): void {
  const [route, pattern] = proxied ? ["origin", ""] : routeOf(pathOf(req.url));
  const m = instanceMetrics;
  m.requests.inc([route, String(status)]);
  m.requestSeconds.observe([route], ms / 1000);
  if (pattern) nameServerSpan(req.method, pattern);
}
