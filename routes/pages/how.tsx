/**
 * `GET /wait/how-it-works`: a public page that explains the waiting room in plain words. The
 * visitor pages' footer links here (it neither joins a queue nor needs an admission), under
 * `/wait` so that it never shadows a page of the protected site.
 */
import { Hono } from "hono";
import { Document } from "../../components/Document.tsx";
import type { Assets } from "./assets.ts";
import { htmlPage } from "./html.tsx";

/** The explanation page. */
export function howRoutes(assets: () => Promise<Assets>, base = "") {
  const app = new Hono();
  app.get("/wait/how-it-works", async (c) => {
    const a = await assets();
    return htmlPage(
      c,
      <Document
        title="How this waiting room works"
        styleHref={a["style.css"]}
        base={base}
        about
      >
        <section class="card">
          <h1>How this waiting room works</h1>
          <p>
            When more people arrive than the site can serve at once, you get a place in line instead
            of an error page. The site lets people in at a steady pace.
          </p>
          <ul>
            <li>
              Keep the waiting page open: it checks in by itself and moves on when it is your turn.
              Closing it for long gives your place up.
            </li>
            <li>
              Reloading or opening the page again keeps your place (a cookie remembers it); a new
              place would only put you at the back.
            </li>
            <li>
              Some sales draw people at random instead of first come, first served; the page says
              which.
            </li>
            <li>
              When it is your turn you are taken to the site. If the page asks you to confirm, do so
              within the time shown, or the place goes to the next person.
            </li>
          </ul>
          <p class="muted">
            Only what the line needs is kept: a random id in a cookie, and your address and country
            to share places fairly and keep abuse out.
          </p>
          <p>To go back to the line, use your browser's Back button.</p>
        </section>
      </Document>,
    );
  });
  return app;
}
