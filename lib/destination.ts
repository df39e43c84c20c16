/**
 * Where an admitted visitor goes: `?return=` (a same-origin relative path only), then
 * branding `redirectUrl`, then `/` when the origin proxy is on, else `/demo`.
 */
import type { Config } from "./config.ts";

const BASE = "http://tollgate.invalid";

/** A same-origin relative path: starts with `/`, not `//`, no backslash, no control characters. */
export function isSameOriginPath(v: string): boolean {
  // deno-lint-ignore no-control-regex
  return /^\/(?![/\\])/.test(v) && !/[\\\u0000-\u001f\u007f]/.test(v);
}

/** An absolute `https://` URL without credentials (`https://user:pass@…` is refused). */
export function isHttpsUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return u.protocol === "https:" && !u.username && !u.password;
  } catch {
    return false;
  }
}

/**
 * The path when `raw` is a safe same-origin relative path, else null: it starts with `/`, not
 * `//`, holds no backslash, no control characters and no scheme, and does not lead back into
 * the waiting room itself (an admitted visitor sent to `/wait` would bounce there forever).
 *
 * Characters outside printable ASCII come back percent-encoded as UTF-8.
 *
 * @example
 * safeReturnPath("/shop?x=1"); // "/shop?x=1"
 * safeReturnPath("/café"); // "/caf%C3%A9"
 * safeReturnPath("//evil.example"); // null
 */
export function safeReturnPath(raw: string | null | undefined): string | null {
  if (!raw || raw.length > 2048 || !isSameOriginPath(raw)) return null;
  let url: URL;
  let path: string;
  try {
    // Percent-encode (UTF-8) whatever is not printable ASCII, leaving existing `%XX` alone: a raw
    // `é` in a Location header would be read as Latin-1 (`/caf%E9`). Not `url.pathname`, which
    // would turn `/.//x` into the protocol-relative `//x`.
    path = raw.replace(/[^\x21-\x7e]+/g, encodeURIComponent);
    url = new URL(path, BASE);
  } catch {
    return null; // a lone surrogate cannot be encoded
  }
  // Belt and braces: whatever a URL parser makes of it must stay on our origin.
  if (url.origin !== BASE) return null;
  if (url.pathname === "/wait" || url.pathname.startsWith("/wait/")) return null;
  return path;
}

/** Branding `redirectUrl` when usable: a safe same-origin path or an `https://` URL. */
export function safeRedirectUrl(raw: string | null | undefined): string | null {
  if (!raw) return null;
  if (raw.startsWith("/")) return safeReturnPath(raw);
  return isHttpsUrl(raw) ? new URL(raw).href : null;
}

/**
 * Where the proxy setting is read: the services' origin setting (ORIGIN_URL plus the admin
 * override, cached per instance), or ORIGIN_URL alone where no services exist (plain tests).
 */
export interface OriginAware {
  config: Pick<Config, "ORIGIN_URL"> & Partial<Pick<Config, "BASE_PATH">>;
  origin?: { effective(): Promise<{ enabled: boolean }> };
}

/** True when the origin proxy serves `/`: ORIGIN_URL, unless the admin override says otherwise. */
export async function originProxyOn(s: OriginAware): Promise<boolean> {
  return s.origin ? (await s.origin.effective()).enabled : Boolean(s.config.ORIGIN_URL);
}

/** The destination after admission, in the order */
export async function destinationFor(
  s: OriginAware,
  branding: { redirectUrl: string },
  returnParam: string | null | undefined,
): Promise<string> {
  return safeReturnPath(returnParam) ?? safeRedirectUrl(branding.redirectUrl) ??
    ((await originProxyOn(s)) ? "/" : `${s.config.BASE_PATH ?? ""}/demo`);
}

/**
 * A resume link (`/wait?queue=…&resume=…`) that also names the page the visitor asked for, so the
 * place moved to another browser still lands there at its turn (empty `returnPath`: unchanged).
 */
export function withReturn(link: string, returnPath: string): string {
  return returnPath ? `${link}&return=${encodeURIComponent(returnPath)}` : link;
}
