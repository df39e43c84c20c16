/** Rendering a visitor page: Preact to HTML, with a strict Content-Security-Policy. */
import { createHash } from "node:crypto";
import type { Context } from "hono";
import type { VNode } from "preact";
import { renderToString } from "preact-render-to-string";

/** What the CSP of one page allows beyond the defaults. */
export interface CspOptions {
  /** Inline CSS allowed by its hash (the branding theme). */
  inlineStyle?: string;
  /** May be framed by any site (`?embed=1`); otherwise only by our own origin. */
  embed?: boolean;
  /** Extra origins forms may post to or be redirected to (an `https://` redirectUrl). */
  formOrigins?: string[];
  /** A challenge widget's origin (Turnstile on the join check): its script and its frame. */
  widgetOrigin?: string;
}

/** The CSP: scripts only from our origin (no inline scripts), styles from us or by hash. */
export function contentSecurityPolicy(o: CspOptions = {}): string {
  const style = o.inlineStyle
    ? `'self' 'sha256-${createHash("sha256").update(o.inlineStyle).digest("base64")}'`
    : "'self'";
  return [
    "default-src 'none'",
    o.widgetOrigin ? `script-src 'self' ${o.widgetOrigin}` : "script-src 'self'",
    ...(o.widgetOrigin ? [`frame-src ${o.widgetOrigin}`] : []),
    `style-src ${style}`,
    "img-src 'self' https: data:",
    "connect-src 'self'",
    // Chrome applies form-action to the redirect after a post, so the destination counts too.
    `form-action ${["'self'", ...(o.formOrigins ?? [])].join(" ")}`,
    "base-uri 'none'",
    `frame-ancestors ${o.embed ? "*" : "'self'"}`,
  ].join("; ");
}

/** JSON safe inside a `<script type="application/json">` block (no `</script>`, no `<!--`). */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/** Renders `page` as an HTML response with the page CSP. */
export function htmlPage(c: Context, page: VNode, status = 200, csp: CspOptions = {}): Response {
  const html = "<!doctype html>" + renderToString(page);
  return c.html(html, status as 200, {
    "Content-Security-Policy": contentSecurityPolicy(csp),
    "Cache-Control": "no-store",
    // Like the pages' robots meta: a search engine never indexes a waiting room as the site.
    "X-Robots-Tag": "noindex",
  });
}
