/**
 * The admin's branding preview of `/wait`: the page as a waiter sees it, with sample figures,
 * without joining (the admin's browser must not become a visitor) and without the island.
 */
import type { Context } from "hono";
import type { Services } from "../services.ts";
import { Document } from "../../components/Document.tsx";
import { WaitPage } from "../../components/WaitPage.tsx";
import type { WaitRoomProps } from "../../islands/WaitRoom.tsx";
import { parseBrandingDraft } from "../../lib/branding.ts";
import { pageBranding, themeCss } from "../../lib/theme.ts";
import type { Assets } from "./assets.ts";
import { htmlPage } from "./html.tsx";
import type { NoticeFn } from "./wait_notice.tsx";
import { localTexts, pageLang, selfUrl } from "./lang.ts";
import { t } from "../../lib/i18n/format.ts";

/** A waiting page with sample figures for the admin's preview: no join, no cookie, no script. */
export async function previewPage(
  c: Context,
  s: Services,
  assets: () => Promise<Assets>,
  notice: NoticeFn,
  queue: string,
  embed: boolean,
): Promise<Response> {
  const base = s.config.BASE_PATH ?? "";
  const settings = await s.engine.ctx.readSettings(queue);
  if (!settings) return notice(c, 404, "notice.notFound", "notice.notFoundText");
  const a = await assets();
  // `draft`: the admin's form as typed, so the preview follows it before a save.
  const branding = {
    ...await s.engine.ctx.branding(queue),
    ...parseBrandingDraft(c.req.query("draft")),
  };
  // The preview speaks the language the admin picked (`?lang=`, not kept as the admin's own
  // visitor language), with the draft's wording.
  const { lang, m } = pageLang(c, branding.messages, { keep: false });
  const b = localTexts(pageBranding(branding), m, lang);
  const fifo = settings.mode === "queue";
  const view: WaitRoomProps["view"] = {
    queue,
    visitorId: "preview",
    status: "waiting",
    admissionMode: settings.mode,
    estimatedWaitSeconds: 240,
    ...(fifo ? { position: 128 } : {}),
    ...(branding.showWaitingCount
      ? { waiting: 1500, ...(fifo ? { ahead: 127, behind: 1372 } : {}) }
      : {}),
  };
  const island: WaitRoomProps = {
    queue,
    view,
    serverNow: s.clock.now(),
    start: view.position ?? null,
    destination: "/",
    returnPath: "",
    embed,
    title: b.title,
    base,
    lang,
    m,
  };
  // Embedded pages are see-through (the host page shows behind them); the preview shows the
  // background colour the page itself shows.
  const css = themeCss(b) + "body.embed{background:var(--tg-bg)}";
  return htmlPage(
    c,
    <Document
      title={t(m, "page.previewTitle", { title: b.title })}
      styleHref={a["style.css"]}
      themeCss={css}
      embed={embed}
      base={base}
      lang={lang}
      m={m}
      url={selfUrl(c, base)}
    >
      <WaitPage branding={b} island={island} />
    </Document>,
    200,
    { inlineStyle: css, embed },
  );
}
