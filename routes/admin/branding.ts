import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Services } from "../services.ts";
import { validationHook } from "../../http/validation.ts";
import {
  type Branding,
  BrandingInput,
  BrandingOverrideInput,
  readBranding,
  readQueueBranding,
  saveBranding,
  saveQueueBranding,
} from "../../lib/branding.ts";
import { BadRequestError } from "../../lib/errors.ts";
import { adminSecurity, errs, jsonBody, jsonOk, QueueName } from "../schemas.ts";
import { type AdminEnv, adminSession, audit } from "./session.ts";
import { BrandingView } from "./state.ts";

const Overrides = BrandingInput.openapi("BrandingOverrides", {
  description: "the fields this queue sets itself; a field left out follows the service-wide one",
});

const QueueBrandingView = z.object({
  queue: QueueName,
  service: BrandingView.openapi({ description: "the service-wide record" }),
  overrides: Overrides,
  effective: BrandingView.openapi({ description: "what this queue's visitors see" }),
}).openapi("QueueBranding");

const getRoute = createRoute({
  method: "get",
  path: "/api/admin/branding",
  summary: "Branding: service-wide, or a queue's overrides and what its visitors see",
  security: adminSecurity,
  request: { query: z.object({ queue: QueueName.optional() }) },
  responses: {
    200: jsonOk(z.union([QueueBrandingView, BrandingView]), "with `queue`: QueueBranding"),
    ...errs(400, 401, 403, 404),
  },
});

const putRoute = createRoute({
  method: "put",
  path: "/api/admin/branding",
  summary: "Save branding (fields left out keep their value); with `queue`, that queue's overrides",
  description: "Without `queue`: the service-wide record (`null` is refused). With `queue`: a " +
    "field set to a value overrides the service-wide one for that queue only; `null` makes " +
    "the field inherit again. The answer then is the queue's `QueueBranding`.",
  security: adminSecurity,
  request: {
    body: jsonBody(BrandingOverrideInput.extend({ queue: QueueName.optional() })),
  },
  responses: {
    200: jsonOk(z.union([QueueBrandingView, BrandingView]), "the saved branding"),
    ...errs(400, 401, 403, 404),
  },
});

/** Service-wide branding and each queue's field-by-field overrides. */
export function brandingRoutes(s: Services) {
  const app = new OpenAPIHono<AdminEnv>({ defaultHook: validationHook });
  app.use("/api/admin/branding", adminSession(s));

  const queueView = async (queue: string) => {
    await s.engine.settings(queue); // 404 for an unknown queue
    const [service, overrides, effective] = await Promise.all([
      readBranding(s.kv),
      readQueueBranding(s.kv, queue),
      readBranding(s.kv, queue),
    ]);
    return { queue, service, overrides, effective };
  };

  app.openapi(getRoute, async (c) => {
    const { queue } = c.req.valid("query");
    return c.json(queue ? await queueView(queue) : await readBranding(s.kv), 200);
  });

  app.openapi(putRoute, async (c) => {
    const { queue, ...patch } = c.req.valid("json");
    const fields = Object.keys(patch);
    if (!queue) {
      const nulls = fields.filter((k) => patch[k as keyof typeof patch] === null);
      if (nulls.length) {
        throw new BadRequestError("only a queue's field can inherit (null); name the queue", {
          fields: nulls.map((path) => ({ path, message: "must not be null without a queue" })),
        });
      }
      const saved = await saveBranding(s.kv, patch as Partial<Branding>);
      s.engine.ctx.invalidateBranding();
      await audit(s, c, "branding.save", { fields });
      return c.json(saved, 200);
    }
    await s.engine.settings(queue);
    await saveQueueBranding(s.kv, queue, patch);
    s.engine.ctx.invalidateBranding();
    await audit(s, c, "branding.save", { queue, fields });
    return c.json(await queueView(queue), 200);
  });
  return app;
}
