/**
 * `GET`/`PUT /api/admin/crawlers`: a queue's rules for search engine crawlers (queued like
 * people, let through to the site, or told 503) and the HTTP status of its waiting page.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Services } from "../services.ts";
import {
  CRAWLER_MODES,
  type CrawlerSettings,
  QUEUE_STATUS_CODES,
  readCrawlerSettings,
  writeCrawlerSettings,
} from "../../lib/crawlers/settings.ts";
import { KNOWN_CRAWLERS } from "../../lib/crawlers/known.ts";
import { validationHook } from "../../http/validation.ts";
import { adminSecurity, errs, jsonBody, jsonOk } from "../schemas.ts";
import { OptQueue, pickQueue } from "./settings.ts";
import { type AdminEnv, adminSession, audit } from "./session.ts";
import { closedObject } from "../closed_object.ts";

const Mode = z.enum(CRAWLER_MODES).openapi({
  description: "what a search engine crawler verified by reverse-then-forward DNS gets: `queue` " +
    "(a place, like a person), `pass` (the site, without a place and without counting against " +
    "capacity) or `503` (503 with Retry-After). A user agent alone is never believed.",
});
const StatusCode = z.union(QUEUE_STATUS_CODES.map((n) => z.literal(n)) as [
  z.ZodLiteral<200>,
  z.ZodLiteral<429>,
  z.ZodLiteral<503>,
]).openapi({ description: "HTTP status of the waiting page while a visitor waits" });

const CrawlersView = z.object({
  queue: z.string(),
  crawlers: Mode,
  queueStatusCode: StatusCode,
  verified: z.array(z.string()).openapi({ description: "the crawlers Tollgate can verify" }),
}).openapi("Crawlers");

const getRoute = createRoute({
  method: "get",
  path: "/api/admin/crawlers",
  summary: "The queue's rules for search engine crawlers and its waiting page's status",
  security: adminSecurity,
  request: { query: z.object({ queue: OptQueue }) },
  responses: { 200: jsonOk(CrawlersView, "the rules"), ...errs(400, 401, 403, 404) },
});
const putRoute = createRoute({
  method: "put",
  path: "/api/admin/crawlers",
  summary: "Change the queue's crawler rules (fields left out keep their value)",
  security: adminSecurity,
  request: {
    body: jsonBody(
      closedObject({
        queue: OptQueue,
        crawlers: Mode.optional(),
        queueStatusCode: StatusCode.optional(),
      }),
    ),
  },
  responses: { 200: jsonOk(CrawlersView, "the saved rules"), ...errs(400, 401, 403, 404) },
});

const view = (queue: string, c: CrawlerSettings) => ({
  queue,
  ...c,
  verified: KNOWN_CRAWLERS.map((k) => k.name),
});

/** The crawler rules behind the admin session. */
export function crawlerRoutes(s: Services) {
  const app = new OpenAPIHono<AdminEnv>({ defaultHook: validationHook });
  app.use("/api/admin/crawlers", adminSession(s));
  app.openapi(getRoute, async (c) => {
    const q = await pickQueue(s, c.req.valid("query").queue);
    await s.engine.settings(q); // 404 unknown_queue
    return c.json(view(q, await readCrawlerSettings(s.kv, q)), 200);
  });
  app.openapi(putRoute, async (c) => {
    const { queue, ...patch } = c.req.valid("json");
    const q = await pickQueue(s, queue);
    const saved = await writeCrawlerSettings(s.kv, q, patch);
    s.crawlers.settings.invalidate(q);
    await audit(s, c, "queue.crawlers", { queue: q, ...patch });
    return c.json(view(q, saved), 200);
  });
  return app;
}
