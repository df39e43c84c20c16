/**
 * The pre-queue behind the admin session: turn it on (with its window) or off, and publish the
 * queue's opening-draw records (`GET /draw`), which tells anyone the number of participants.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Services } from "../../app.ts";
import { validationHook } from "../../http/validation.ts";
import { PREQUEUE_MAX_MINUTES } from "../../lib/queue/prequeue_phase.ts";
import { keys } from "../../lib/store/keys.ts";
import { PREQUEUE_WORDS } from "../../lib/queue/wording.ts";
import { adminSecurity, errs, jsonBody, jsonOk } from "../schemas.ts";
import { closedObject } from "../closed_object.ts";
import { type AdminEnv, adminSession, audit } from "./session.ts";
import { DRAW_COMMITTED_409, OptQueue, pickQueue, settingsChange, write } from "./settings.ts";

const prequeueRoute = write(
  "put",
  "/api/admin/prequeue",
  `Turn the pre-queue on or off. ${PREQUEUE_WORDS}`,
  closedObject({
    queue: OptQueue,
    enabled: z.boolean(),
    windowMinutes: z.number().int().min(1).max(PREQUEUE_MAX_MINUTES).optional().openapi({
      description: "required when enabled: 1 to 1440 (24 hours); the window ends at opensAt",
    }),
  }).refine((b) => !b.enabled || b.windowMinutes !== undefined, {
    message: "windowMinutes is required to turn the pre-queue on",
    path: ["windowMinutes"],
  }),
  DRAW_COMMITTED_409,
);

const publishRoute = createRoute({
  method: "put",
  path: "/api/admin/draw/publish",
  summary: "Publish (or withdraw) the queue's opening-draw record at GET /draw",
  description: "Publishing shows anyone the number of participants of each draw.",
  security: adminSecurity,
  request: {
    body: jsonBody(closedObject({ queue: OptQueue, published: z.boolean() })),
  },
  responses: {
    200: jsonOk(z.object({ queue: z.string(), published: z.boolean() }), "the new state"),
    ...errs(400, 401, 403, 404),
  },
});

/** Pre-queue settings and draw publication. */
export function prequeueRoutes(s: Services) {
  const app = new OpenAPIHono<AdminEnv>({ defaultHook: validationHook });
  app.use("/api/admin/prequeue", adminSession(s));
  app.use("/api/admin/draw/publish", adminSession(s));
  const change = settingsChange(s);
  app.openapi(prequeueRoute, (c) => {
    const { queue, enabled, windowMinutes } = c.req.valid("json");
    const minutes = enabled ? windowMinutes! : null;
    return change(
      c,
      queue,
      "queue.prequeue",
      { windowMinutes: minutes },
      (q) => s.engine.setPrequeue(q, minutes),
    );
  });
  app.openapi(publishRoute, async (c) => {
    const { queue, published } = c.req.valid("json");
    const q = await pickQueue(s, queue);
    await s.engine.settings(q);
    await s.engine.ctx.kv.set(keys.drawPublished(q), published);
    await audit(s, c, "queue.draw.publish", { queue: q, published });
    return c.json({ queue: q, published }, 200);
  });
  return app;
}
