/**
 * The optional path prefix of Tollgate's own paths (`BASE_PATH`, e.g. `/_tollgate`). Behind a
 * proxy that sends one prefix to Tollgate, the site keeps every other path, its own `/status`
 * and `/static/…` included. The served `fetch` takes the prefix off first, so every route, fast
 * path and test sees the plain paths; pages put it back on the links they write.
 */
import { isOwnPath } from "./origin/own_paths.ts";
import { pathOf } from "./origin/request.ts";

/**
 * `req` without `base` at the front of its path, when what follows is one of Tollgate's paths;
 * otherwise `req` itself. Requests outside the prefix stay as they are (Tollgate still answers
 * its plain paths), and `/_tollgate/anything-else` is not turned into the origin's `/anything-else`.
 *
 * @example
 * stripBasePath("/_tollgate", new Request("http://h/_tollgate/wait?x=1")).url; // "http://h/wait?x=1"
 */
export function stripBasePath(base: string, req: Request): Request {
  const full = pathOf(req.url);
  if (!full.startsWith(base)) return req;
  const rest = full.slice(base.length);
  if (rest[0] !== "/") return req;
  const q = rest.indexOf("?");
  if (!isOwnPath(q < 0 ? rest : rest.slice(0, q))) return req;
  const origin = req.url.slice(0, req.url.length - full.length);
  return new Request(origin + rest, req);
}

/** `path` (starting with `/`) under the prefix: what a page links to. */
export function withBase(base: string | undefined, path: string): string {
  return base ? base + path : path;
}
