/**
 * `GET /wait/how-it-works`: a public page that explains the waiting room in plain words, in the
 * visitor's language. The visitor pages' footer links here (it neither joins a queue nor needs an
 * admission), under `/wait` so that it never shadows a page of the protected site.
 */
import { Hono } from "hono";
import { Document } from "../../components/Document.tsx";
import type { Assets } from "./assets.ts";
import { htmlPage } from "./html.tsx";
import { pageLang, selfUrl } from "./lang.ts";

/** The explanation page. */
export function howRoutes(assets: () => Promise<Assets>, base = "") {
  const app = new Hono();
  app.get("/wait/how-it-works", async (c) => {
    const a = await assets();
    const { lang, m } = pageLang(c);
    return htmlPage(
      c,
      <Document
        title={m["how.title"]}
        styleHref={a["style.css"]}
        base={base}
        about
        lang={lang}
        m={m}
        url={selfUrl(c, base)}
      >
        <section class="card">
          <h1>{m["how.title"]}</h1>
          <p>{m["how.intro"]}</p>
          <ul>
            <li>{m["how.keepOpen"]}</li>
            <li>{m["how.reload"]}</li>
            <li>{m["how.random"]}</li>
            <li>{m["how.turn"]}</li>
          </ul>
          <p class="muted">{m["how.privacy"]}</p>
          <p>{m["how.back"]}</p>
        </section>
      </Document>,
    );
  });
  return app;
}
