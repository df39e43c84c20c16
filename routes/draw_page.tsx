/** `GET /draw/verify`: the browser check of a published draw (the script does the work). */
import { Hono } from "hono";
import type { Services } from "../app.ts";
import { Document } from "../components/Document.tsx";
import type { Assets } from "./pages/assets.ts";
import { htmlPage, scriptJson } from "./pages/html.tsx";
import { QUEUE_NAME_RE } from "../lib/names.ts";

/** The check page: fetches `/draw?queue=Q` (or reads a pasted record) and recomputes it. */
export function verifyPage(s: Services, assets: () => Promise<Assets>) {
  const app = new Hono();
  app.get("/draw/verify", async (c) => {
    const a = await assets();
    const asked = c.req.query("queue");
    const queue = asked && QUEUE_NAME_RE.test(asked)
      ? asked
      : (await s.engine.defaultQueue()) ?? "default";
    // The visitor's arrival number, carried by the waiting page's link: their place is shown
    // as soon as the draw checks out.
    const arrivalQuery = c.req.query("arrival") ?? "";
    const arrival = /^[0-9]{1,12}$/.test(arrivalQuery) ? arrivalQuery : "";
    if (!await s.engine.ctx.readSettings(queue)) {
      return htmlPage(
        c,
        <Document title="Not found" base={s.config.BASE_PATH ?? ""} styleHref={a["style.css"]}>
          <section class="card">
            <h1>Not found</h1>
            <p>There is no waiting room here, so there is no draw to check.</p>
          </section>
        </Document>,
        404,
      );
    }
    return htmlPage(
      c,
      <Document
        title="Check an opening draw"
        base={s.config.BASE_PATH ?? ""}
        styleHref={a["style.css"]}
        scriptSrc={a["verify_draw.js"]}
        propsJson={scriptJson({ queue, base: s.config.BASE_PATH ?? "" })}
      >
        <div class="panel" id="tg-verify">
          <h1>Check an opening draw</h1>
          <p>
            This page recomputes the draw of queue <code>{queue}</code>{" "}
            in your browser: the seed must hash to the commitment published when the pre-queue
            opened, the list must hash to the published list hash, and the order must follow from
            the seed and the list. Nothing here trusts the server's own answer.
          </p>
          <p>
            <button type="button" class="button" id="tg-verify-fetch">
              Check the published draw
            </button>
          </p>
          <details>
            <summary>Or paste a record you saved</summary>
            <textarea
              id="tg-verify-text"
              class="text-input"
              rows={6}
              aria-label="Draw record (JSON)"
            />
            <button type="button" class="button secondary" id="tg-verify-paste">
              Check this record
            </button>
          </details>
          <p id="tg-verify-arrival-row" hidden>
            <label for="tg-verify-arrival">Your arrival number</label>{" "}
            <input
              id="tg-verify-arrival"
              class="text-input"
              inputMode="numeric"
              size={8}
              value={arrival}
            />
          </p>
          <div role="status" aria-live="polite" id="tg-verify-out">
            <noscript>This check runs in the browser: it needs JavaScript.</noscript>
          </div>
        </div>
      </Document>,
    );
  });
  return app;
}
