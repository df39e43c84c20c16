/** The visitor pages: /wait (+ /wait/enter), /demo and the built assets under /static/. */
import { OpenAPIHono, z } from "@hono/zod-openapi";
import type { Services } from "../services.ts";
import { QueueName } from "../schemas.ts";
import { assetsOnce, loadAssets, staticRoutes } from "./assets.ts";
import { adminPageRoutes } from "./admin.tsx";
import { demoRoutes } from "./demo.tsx";
import { howRoutes } from "./how.tsx";
import { waitRoutes } from "./wait.tsx";
import { validationHook } from "../../http/validation.ts";

const html = (description: string) => ({
  description,
  content: { "text/html": { schema: z.string() } },
});
const redirect = (description: string) => ({ description });

/** A page's entry in the OpenAPI document. */
type PageDoc = Parameters<OpenAPIHono["openAPIRegistry"]["registerPath"]>[0];

/** The pages in the OpenAPI document: HTML answers, described here since no schema checks them. */
const PAGE_DOCS: PageDoc[] = [
  {
    method: "get",
    path: "/admin",
    summary: "The admin single-page app (setup wizard, sign-in, control room); any /admin/* too",
    request: {
      query: z.object({
        invite: z.string().optional().openapi({
          description: "invite token: opens the accept form",
        }),
        recover: z.string().optional().openapi({ description: "present: opens password recovery" }),
      }),
    },
    responses: { 200: html("the app's HTML shell (the admin.js bundle does the rest)") },
  },
  {
    method: "get",
    path: "/wait",
    summary: "The built-in waiting room page (joins or resumes by tg_ticket; HEAD never joins)",
    request: {
      query: z.object({
        queue: QueueName.optional().openapi({ description: "queue name (default queue)" }),
        return: z.string().optional().openapi({
          description: "destination after admission: a same-origin relative path only",
        }),
        embed: z.enum(["1"]).optional().openapi({ description: "compact layout for an iframe" }),
        start: z.string().optional().openapi({
          description: "position at first sight (progress bar without JS)",
        }),
        preview: z.enum(["1"]).optional().openapi({
          description: "with an admin session: sample figures for the branding preview, no join",
        }),
        enqueueToken: z.string().optional().openapi({
          description: "the operator site's enqueue token, sent with the join (one place per key)",
        }),
        code: z.string().optional().openapi({
          description: "a priority code: the place goes into the code's lane (a place held in " +
            "the main line moves there); a refused code is a 403 page and changes nothing",
        }),
        lang: z.string().optional().openapi({
          description: "the page's language (en, de, fr, es, it, pt-BR, nl, pl, tr, ru, ja, ko, " +
            "zh-CN, zh-TW, ar), kept in the tg_lang cookie; otherwise tg_lang, then " +
            "Accept-Language",
        }),
      }),
    },
    responses: {
      200: html(
        "waiting (or click-to-enter) page; sets tg_ticket. While the queue's bot challenge is " +
          "on, a new visitor first gets the check page (solves it in a Web Worker, then joins); " +
          "without JavaScript it says the check needs it",
      ),
      302: redirect(
        "a search engine crawler verified by reverse-then-forward DNS, under the queue's " +
          "`crawlers: pass` rule: to the destination, without a place",
      ),
      303: redirect("admitted and entered: to the destination; sets tg_access"),
      400: html("malformed queue name"),
      403: html("refused (geo_blocked, a missing or refused enqueue token): a plain page"),
      404: html("unknown queue"),
      429: html(
        "rate limited: a page that retries after Retry-After; or the waiting page itself " +
          "under the queue's `queueStatusCode: 429`",
      ),
      503: html(
        "waiting-row cap reached, or the service could not answer: a page that retries by " +
          "itself (Retry-After, meta refresh); a verified crawler under `crawlers: 503` " +
          "(Retry-After: 3600); or the waiting page under `queueStatusCode: 503`",
      ),
    },
  },
  {
    method: "post",
    path: "/wait/enter",
    summary: "Click-to-enter confirmation from the page's form (works without JS)",
    request: {
      body: {
        content: {
          "application/x-www-form-urlencoded": {
            schema: z.object({ queue: QueueName, return: z.string().optional() }),
          },
        },
      },
    },
    responses: {
      303: redirect("to the destination when entered (sets tg_access), else back to /wait"),
      400: html("malformed queue name"),
    },
  },
  {
    method: "get",
    path: "/demo",
    summary: "Demo page protected by requireAdmission(): shows the verified claims",
    responses: {
      200: html("admitted: the verified claims"),
      302: redirect("not admitted: to /wait?return=/demo"),
    },
  },
  {
    method: "get",
    path: "/wait/how-it-works",
    summary: "Public page explaining the waiting room (the visitor pages' footer links to it)",
    request: {
      query: z.object({
        lang: z.string().optional().openapi({ description: "the page's language, as on /wait" }),
      }),
    },
    responses: { 200: html("the explanation; joins nothing") },
  },
];

/** Mounts the pages; the asset manifest is read once, on first use. */
export function pageRoutes(s: Services) {
  const app = new OpenAPIHono({ defaultHook: validationHook });
  // Asset URLs carry the path prefix: the browser asks for them through the proxy.
  const base = s.config.BASE_PATH ?? "";
  const getAssets = assetsOnce(async () =>
    Object.fromEntries(Object.entries(await loadAssets()).map(([k, v]) => [k, base + v]))
  );
  app.route("/", staticRoutes());
  app.route("/", howRoutes(getAssets, s.config.BASE_PATH ?? ""));
  app.route("/", waitRoutes(s, getAssets));
  app.route("/", demoRoutes(s, getAssets));
  app.route("/", adminPageRoutes(s, getAssets));

  for (const doc of PAGE_DOCS) app.openAPIRegistry.registerPath(doc);
  return app;
}
