/**
 * Two questions `GET /wait` asks before it joins anyone: is this a page load at all (a favicon or
 * image fetch the origin proxy sent here is not), and did this browser's visit just end (then the
 * page says so and offers the line again, instead of quietly taking a new place at the back).
 */
import type { Context } from "hono";
import type { Services } from "../services.ts";
import { cookieValue, cookieValues } from "../../http/cookies.ts";

/** What a browser's `Sec-Fetch-Dest` names for a page load (`empty`: a script's `fetch()`). */
const PAGE_DESTS = new Set(["document", "iframe", "frame", "embed", "object", "empty"]);

/**
 * False for a browser's fetch of an image, a favicon, a script or a style: the origin proxy (or a
 * site's own proxy) sends those here too when the visitor holds no valid token (after its session
 * ended, the origin page's `/favicon.ico` and images). Such a fetch must not join, resume or take
 * the "visit ended" notice meant for the page; it gets the HEAD answer.
 */
export function pageLoad(c: Context): boolean {
  const dest = c.req.header("sec-fetch-dest");
  return dest === undefined || PAGE_DESTS.has(dest);
}

/**
 * True when this browser's visit in `queue` just ended: the origin proxy said so (`tg_ended`,
 * after the site's release), or it still carries a `tg_access` token of `queue` whose session
 * ended early (`POST /release` from the site's server behind forward auth, idle, at its cap).
 */
export async function visitEnded(c: Context, s: Services, queue: string): Promise<boolean> {
  const cookies = c.req.header("cookie");
  if (cookieValue(cookies, "tg_ended") === queue) return true;
  for (const token of cookieValues(cookies, "tg_access")) {
    const claims = await s.signer.verifyAccessToken(token, s.clock.now(), queue);
    if (claims && !(await s.sessions.check(claims)).ok) return true;
  }
  return false;
}
