/**
 * `GET`, `PUT` and `DELETE /api/admin/origin`: the origin proxy override behind the admin
 * session. PUT sets it (on with a URL or with ORIGIN_URL, or off even when ORIGIN_URL is set);
 * DELETE removes it, which goes back to ORIGIN_URL.
 */
import { OpenAPIHono, z } from "@hono/zod-openapi";
import type { Services } from "../services.ts";
import { isOriginUrl, type OriginView } from "../../lib/origin/settings.ts";
import { outboundGuard } from "../../lib/outbound/guard.ts";
import { adminPutRoute, adminRoute } from "../schemas.ts";
import { type AdminEnv, adminSession, audit } from "./session.ts";
import { validationHook } from "../../http/validation.ts";
import { closedObject } from "../closed_object.ts";

const OriginViewSchema = z.object({
  enabled: z.boolean().openapi({ description: "the proxy runs (effective)" }),
  url: z.string().nullable().openapi({ description: "the origin in effect; null when off" }),
  source: z.enum(["env", "admin", "none"]).openapi({
    description: "admin: the override decides (its URL, or off); env: ORIGIN_URL; none: neither",
  }),
  envUrl: z.string().nullable().openapi({
    description: "ORIGIN_URL (without credentials): what DELETE goes back to",
  }),
  override: z.object({
    enabled: z.boolean(),
    url: z.string().nullable().openapi({ description: "null: on with ORIGIN_URL" }),
    updatedAt: z.number().int().openapi({ description: "unix ms" }),
  }).nullable(),
}).openapi("OriginSettings");

const OriginInput = closedObject({
  enabled: z.boolean(),
  url: z.string().max(2048).refine(isOriginUrl, {
    message: "must be an http:// or https:// URL without credentials, query or fragment",
  }).nullable().optional().openapi({
    description: "the origin's base URL; omitted or null: ORIGIN_URL",
    example: "https://shop.internal:8080",
  }),
}).openapi("OriginInput");

const PATH = "/api/admin/origin";
const getRoute = adminRoute(
  "get",
  PATH,
  "The origin proxy in effect (URL and source) and the stored override",
  OriginViewSchema,
);
const putRoute = adminPutRoute(
  PATH,
  "Override the origin proxy: on (own URL or ORIGIN_URL) or off (even with ORIGIN_URL)",
  OriginViewSchema,
  OriginInput,
);
const deleteRoute = adminRoute(
  "delete",
  PATH,
  "Clear the override: back to ORIGIN_URL (no proxy without it)",
  OriginViewSchema,
);

/** What the audit log keeps of a setting (the URL carries no credentials: they are refused). */
const auditDetail = (v: OriginView) => ({ enabled: v.enabled, url: v.url, source: v.source });

/** The origin override routes. */
export function originRoutes(s: Services) {
  const app = new OpenAPIHono<AdminEnv>({ defaultHook: validationHook });
  app.use(PATH, adminSession(s));

  app.openapi(getRoute, async (c) => c.json(await s.origin.view(), 200));

  app.openapi(putRoute, async (c) => {
    const b = c.req.valid("json");
    // The address this request came in on reaches us too (a proxy loop).
    const guard = outboundGuard(s.config);
    const view = await s.origin.save(b, (url) => guard.assertSavable(url, c.req.url));
    await audit(s, c, "origin.save", auditDetail(view));
    return c.json(view, 200);
  });

  app.openapi(deleteRoute, async (c) => {
    const view = await s.origin.clear();
    await audit(s, c, "origin.clear", auditDetail(view));
    return c.json(view, 200);
  });

  return app;
}
