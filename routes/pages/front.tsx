/**
 * The front door: `GET /` when no site is behind Tollgate (with the origin proxy on, `/` is the
 * site's), and any other page a browser asks for that is not here (an admitted visitor sent to
 * `?return=/shop` with no site set up). A small page that says what this is and links to the
 * waiting room, the admin app and the docs, instead of the API's JSON `not_found`. When the
 * branding names an https site for admitted visitors, `/` goes there instead.
 */
import type { Context } from "hono";
import { HeadBasics } from "../../components/Document.tsx";
import { isHttpsUrl } from "../../lib/destination.ts";
import type { Services } from "../services.ts";
import { htmlPage } from "./html.tsx";

/** The page's own stylesheet (no user data: allowed by its hash in the CSP). */
const FRONT_CSS = "body{font:1rem/1.5 system-ui,sans-serif;max-width:36rem;margin:2rem auto;" +
  "padding:0 1rem}@media (prefers-color-scheme:dark){body{background:#0b1120;color:#e2e8f0}" +
  "a{color:#93c5fd}}li{margin:.4rem 0}";

/** Where the docs live (the service serves no docs of its own). */
const DOCS = "https://github.com/tollgate-dev/tollgate#readme";

/** Whether the request is a browser asking for a page (not an API client). */
export function wantsPage(c: Context): boolean {
  return (c.req.method === "GET" || c.req.method === "HEAD") &&
    (c.req.header("accept") ?? "").includes("text/html");
}

/** The front page (200 at `/`) or the page-not-here page (404 elsewhere). */
export async function frontPage(c: Context, s: Services): Promise<Response> {
  const base = s.config.BASE_PATH ?? "";
  const home = c.req.path === "/" || c.req.path === `${base}/`;
  if (home) {
    // The operator's site is elsewhere: send the browser there.
    const site = (await s.engine.ctx.branding("").catch(() => null))?.redirectUrl ?? "";
    if (isHttpsUrl(site)) return c.redirect(site, 302);
  }
  const title = home ? "Tollgate waiting room" : "No page here";
  return htmlPage(
    c,
    <html lang="en">
      <head>
        <HeadBasics title={title} />
        <style dangerouslySetInnerHTML={{ __html: FRONT_CSS }} />
      </head>
      <body>
        <main>
          <h1>{title}</h1>
          <p>
            {home
              ? "This is a Tollgate waiting room. No site is set up behind it yet, so there is " +
                "nothing else to show here."
              : "This waiting room has no site behind it yet, so this page does not exist here."}
          </p>
          <ul>
            <li>
              <a href={`${base}/wait`}>The waiting room</a>
            </li>
            <li>
              <a href={`${base}/admin`}>The admin app</a> (for whoever runs this service)
            </li>
            <li>
              <a href={`${base}/wait/how-it-works`}>How the waiting room works</a>
            </li>
            <li>
              <a href={DOCS}>The documentation</a> (how to put a site behind it)
            </li>
          </ul>
        </main>
      </body>
    </html>,
    home ? 200 : 404,
    { inlineStyle: FRONT_CSS },
  );
}
