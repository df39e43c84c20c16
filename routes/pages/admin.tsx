/**
 * `GET /admin` (and any path below it): the admin single-page app's HTML shell. The app itself is
 * the `admin.js` bundle (client/admin/, built by `deno task build`); the shell embeds only what
 * the bundle cannot know, the challenge widget's script URL. The admin CSP is set by app.ts.
 */
import { Hono } from "hono";
import type { Services } from "../services.ts";
import type { Assets } from "./assets.ts";
import { HeadBasics } from "../../components/Document.tsx";
import { renderToString } from "preact-render-to-string";

/** The shell: head, stylesheet, bundle, props, and a no-JS notice. */
function Shell(p: { css?: string; js?: string; propsJson: string }) {
  return (
    <html lang="en">
      <head>
        <HeadBasics title="Tollgate admin" styleHref={p.css} />
        {p.js && <script type="module" src={p.js} />}
      </head>
      <body>
        <div id="tg-admin">
          <noscript>The Tollgate admin needs JavaScript.</noscript>
          {!p.js && <p>The admin app is not built: run `deno task build`.</p>}
        </div>
        <script
          type="application/json"
          id="tg-admin-props"
          dangerouslySetInnerHTML={{ __html: p.propsJson }}
        />
      </body>
    </html>
  );
}

/** Mounts the admin shell at /admin and /admin/*. */
export function adminPageRoutes(s: Services, assets: () => Promise<Assets>) {
  const app = new Hono();
  const page = async () => {
    const a = await assets();
    const props = JSON.stringify({ turnstileScript: s.config.TURNSTILE_SCRIPT_URL })
      .replace(/</g, "\\u003c");
    return "<!doctype html>" +
      renderToString(<Shell css={a["admin.css"]} js={a["admin.js"]} propsJson={props} />);
  };
  // Cache-Control (no-store) and the admin CSP come from app.ts's middleware.
  const handler = async () =>
    new Response(await page(), { headers: { "content-type": "text/html; charset=utf-8" } });
  app.get("/admin", handler);
  app.get("/admin/*", handler);
  return app;
}
