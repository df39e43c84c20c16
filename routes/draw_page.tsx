/** `GET /draw/verify`: the browser check of a published draw (the script does the work). */
import { Hono } from "hono";
import type { Services } from "../app.ts";
import { Document } from "../components/Document.tsx";
import type { Assets } from "./pages/assets.ts";
import { htmlPage, scriptJson } from "./pages/html.tsx";
import { QUEUE_NAME_RE } from "../lib/names.ts";
import { pageLang, selfUrl } from "./pages/lang.ts";
import { rich } from "../islands/rich.tsx";
import { SCRIPT_KEYS, scriptMessages } from "../lib/i18n/catalogues.ts";

/** The check page: fetches `/draw?queue=Q` (or reads a pasted record) and recomputes it. */
export function verifyPage(s: Services, assets: () => Promise<Assets>) {
  const app = new Hono();
  app.get("/draw/verify", async (c) => {
    const a = await assets();
    const asked = c.req.query("queue");
    const queue = asked && QUEUE_NAME_RE.test(asked)
      ? asked
      : (await s.engine.defaultQueue()) ?? "default";
    const base = s.config.BASE_PATH ?? "";
    const { lang, m } = pageLang(
      c,
      (await s.engine.ctx.branding(queue).catch(() => null))?.messages,
    );
    // The visitor's arrival number, carried by the waiting page's link: their place is shown
    // as soon as the draw checks out.
    const arrivalQuery = c.req.query("arrival") ?? "";
    const arrival = /^[0-9]{1,12}$/.test(arrivalQuery) ? arrivalQuery : "";
    if (!await s.engine.ctx.readSettings(queue)) {
      return htmlPage(
        c,
        <Document title={m["notice.notFound"]} base={base} styleHref={a["style.css"]} lang={lang}>
          <section class="card">
            <h1>{m["notice.notFound"]}</h1>
            <p>{m["notice.notFoundText"]}</p>
          </section>
        </Document>,
        404,
      );
    }
    return htmlPage(
      c,
      <Document
        title={m["draw.title"]}
        base={base}
        styleHref={a["style.css"]}
        scriptSrc={a["verify_draw.js"]}
        propsJson={scriptJson({ queue, base, lang, m: scriptMessages(m, SCRIPT_KEYS.draw) })}
        lang={lang}
        m={m}
        url={selfUrl(c, base)}
      >
        <div class="panel" id="tg-verify">
          <h1>{m["draw.title"]}</h1>
          <p>{rich(m, "draw.intro", { queue: <code>{queue}</code> })}</p>
          <p>
            <button type="button" class="button" id="tg-verify-fetch">{m["draw.fetch"]}</button>
          </p>
          <details>
            <summary>{m["draw.paste"]}</summary>
            <textarea
              id="tg-verify-text"
              class="text-input"
              rows={6}
              aria-label={m["draw.recordLabel"]}
            >
            </textarea>
            <button type="button" class="button secondary" id="tg-verify-paste">
              {m["draw.checkRecord"]}
            </button>
          </details>
          <p id="tg-verify-arrival-row" hidden>
            <label>
              {m["draw.arrivalLabel"]}{" "}
              <input
                id="tg-verify-arrival"
                class="text-input"
                inputMode="numeric"
                size={8}
                value={arrival}
              />
            </label>
          </p>
          <div role="status" aria-live="polite" id="tg-verify-out">
            <noscript>{m["draw.noscript"]}</noscript>
          </div>
        </div>
      </Document>,
    );
  });
  return app;
}
