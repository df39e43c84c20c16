import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Services } from "../services.ts";
import { BadRequestError } from "../../lib/errors.ts";
import { pastTime } from "../../lib/past_time.ts";
import type { QueueSettings } from "../../lib/queue/types.ts";
import {
  adminSecurity,
  errors,
  errs,
  jsonBody,
  jsonOk,
  ModeSchema,
  QueueName,
} from "../schemas.ts";
import { type AdminEnv, adminSession, audit } from "./session.ts";
import { validationHook } from "../../http/validation.ts";
import { closedObject } from "../closed_object.ts";

/** The queue an admin write means: the named one, else the engine's default queue. */
export async function pickQueue(s: Services, queue?: string): Promise<string> {
  const q = queue ?? await s.engine.defaultQueue();
  if (q) return q;
  throw new BadRequestError("queue: name the queue (there is no default queue)", {
    fields: [{ path: "queue", message: "required when there is no default queue" }],
  });
}

/** Most queues one service holds (each costs a settings read per tick and per metrics poll). */
export const MAX_QUEUES = 100;

/** A queue's settings as the admin API answers them. */
export const QueueSettingsView = z.object({
  queue: z.string(),
  mode: ModeSchema,
  paused: z.boolean(),
  opensAt: z.number().int().nullable(),
  admitPerSecond: z.number().nullable().openapi({ description: "override; null = default" }),
  defaultAdmitPerSecond: z.number(),
  capacity: z.number().int(),
  maxWaitingVisitors: z.number().int(),
  prequeueMinutes: z.number().int().nullable().openapi({
    description: "pre-queue window before opensAt, in minutes; null = no pre-queue",
  }),
}).openapi("AdminQueueSettings");

/** The operator-facing view of a queue's settings record. */
export function settingsView(s: Services, q: QueueSettings) {
  return {
    queue: q.name,
    mode: q.mode,
    paused: q.paused,
    opensAt: q.opensAt,
    admitPerSecond: q.admitPerSecond,
    defaultAdmitPerSecond: s.config.ADMIT_PER_SECOND,
    capacity: q.capacity,
    maxWaitingVisitors: q.maxWaitingVisitors,
    prequeueMinutes: q.prequeueMinutes,
  };
}

export const OptQueue = QueueName.optional().openapi({ description: "default queue when omitted" });

export function write<T extends z.ZodType>(
  method: "post" | "put",
  path: string,
  summary: string,
  body: T,
  conflict?: string,
) {
  return createRoute({
    method,
    path,
    summary,
    security: adminSecurity,
    request: { body: jsonBody(body) },
    responses: {
      200: jsonOk(QueueSettingsView, "the queue's settings"),
      ...errs(400, 401, 403, 404),
      ...(conflict ? { 409: { description: conflict, content: errors[409].content } } : {}),
    },
  });
}

/** Refused changes of the opening time or pre-queue while a draw's commitment is out. */
export const DRAW_COMMITTED_409 =
  "the pre-queue's commitment is published and its draw not done: opening time and pre-queue " +
  "stay as they are until the draw (`draw_committed`)";

const modeRoute = write(
  "post",
  "/api/admin/mode",
  "Switch admission mode",
  closedObject({ queue: OptQueue, mode: ModeSchema }),
);
const scheduleRoute = write(
  "put",
  "/api/admin/schedule",
  "Set the opening time (unix ms UTC, in the future: a past one is a 400) or null for open now",
  closedObject({
    queue: OptQueue,
    opensAt: z.number().int().min(0).max(8_640_000_000_000_000).nullable(),
  }),
  DRAW_COMMITTED_409,
);
const pauseRoute = write(
  "post",
  "/api/admin/pause",
  "Silent pause or resume (emits the `pause` webhook)",
  closedObject({ queue: OptQueue, paused: z.boolean() }),
);
const rateRoute = write(
  "put",
  "/api/admin/rate",
  "Override the admission rate (admits per second)",
  closedObject({ queue: OptQueue, admitPerSecond: z.number().min(0.1).max(100000) }),
);
const capacityRoute = write(
  "put",
  "/api/admin/capacity",
  "Set concurrent capacity (entered + holding)",
  closedObject({ queue: OptQueue, capacity: z.number().int().min(1).max(10_000_000) }),
);
const rateClearRoute = createRoute({
  method: "delete",
  path: "/api/admin/rate",
  summary: "Clear the rate override (falls back to ADMIT_PER_SECOND)",
  security: adminSecurity,
  request: { query: z.object({ queue: OptQueue }) },
  responses: {
    200: jsonOk(QueueSettingsView, "the queue's settings"),
    ...errs(400, 401, 403, 404),
  },
});

const LimitsView = z.object({ queue: z.string(), maxWaitingVisitors: z.number().int() })
  .openapi("QueueLimits");
const limitsGetRoute = createRoute({
  method: "get",
  path: "/api/admin/queue-limits",
  summary: "Read the waiting-row cap",
  security: adminSecurity,
  request: { query: z.object({ queue: OptQueue }) },
  responses: { 200: jsonOk(LimitsView, "the cap"), ...errs(400, 401, 403, 404) },
});
const limitsPutRoute = createRoute({
  method: "put",
  path: "/api/admin/queue-limits",
  summary: "Set the waiting-row cap (needs the current value and confirmChanges: true)",
  security: adminSecurity,
  request: {
    body: jsonBody(closedObject({
      queue: OptQueue,
      maxWaitingVisitors: z.number().int().min(1).max(50_000_000),
      previousMaxWaitingVisitors: z.number().int(),
      confirmChanges: z.literal(true, { error: "confirmChanges must be true" }),
    })),
  },
  responses: {
    200: jsonOk(LimitsView, "the new cap"),
    ...errs(400, 401, 403, 404),
    409: { description: "stale previous value (`conflict`)", content: errors[409].content },
  },
});

/** One per-queue write: resolve the queue, apply, audit, answer with the settings. */
export function settingsChange(s: Services) {
  return async (
    c: Context<AdminEnv>,
    queue: string | undefined,
    action: string,
    detail: Record<string, unknown>,
    apply: (q: string) => Promise<QueueSettings>,
  ) => {
    const q = await pickQueue(s, queue);
    const out = await apply(q);
    await audit(s, c, action, { queue: q, ...detail });
    return c.json(settingsView(s, out), 200);
  };
}

/** Per-queue admission settings behind the admin session. */
export function settingsRoutes(s: Services) {
  const app = new OpenAPIHono<AdminEnv>({ defaultHook: validationHook });
  const session = adminSession(s);
  for (
    const p of [
      "/api/admin/mode",
      "/api/admin/schedule",
      "/api/admin/pause",
      "/api/admin/rate",
      "/api/admin/capacity",
      "/api/admin/queue-limits",
    ]
  ) app.use(p, session);

  const change = settingsChange(s);

  app.openapi(modeRoute, (c) => {
    const { queue, mode } = c.req.valid("json");
    return change(c, queue, "queue.mode", { mode }, (q) => s.engine.setMode(q, mode));
  });
  app.openapi(scheduleRoute, (c) => {
    const { queue, opensAt } = c.req.valid("json");
    // A time already past would read as upcoming and open nothing: "open now" is null.
    if (opensAt !== null && opensAt <= s.clock.now()) {
      throw new BadRequestError(
        `opensAt: must be in the future (null opens the queue now); ${
          pastTime(opensAt, s.clock.now())
        }`,
        {
          fields: [{ path: "opensAt", message: "must be in the future", rule: { code: "custom" } }],
        },
      );
    }
    return change(c, queue, "queue.schedule", { opensAt }, (q) => s.engine.setOpensAt(q, opensAt));
  });
  app.openapi(pauseRoute, (c) => {
    const { queue, paused } = c.req.valid("json");
    return change(c, queue, "queue.pause", { paused }, (q) => s.engine.setPaused(q, paused));
  });
  app.openapi(rateRoute, (c) => {
    const { queue, admitPerSecond } = c.req.valid("json");
    return change(
      c,
      queue,
      "queue.rate",
      { admitPerSecond },
      (q) => s.engine.setRate(q, admitPerSecond),
    );
  });
  app.openapi(rateClearRoute, (c) => {
    const { queue } = c.req.valid("query");
    return change(c, queue, "queue.rate.clear", {}, (q) => s.engine.setRate(q, null));
  });
  app.openapi(capacityRoute, (c) => {
    const { queue, capacity } = c.req.valid("json");
    return change(
      c,
      queue,
      "queue.capacity",
      { capacity },
      (q) => s.engine.setCapacity(q, capacity),
    );
  });
  app.openapi(limitsGetRoute, async (c) => {
    const q = await pickQueue(s, c.req.valid("query").queue);
    const m = await s.engine.settings(q);
    return c.json({ queue: q, maxWaitingVisitors: m.maxWaitingVisitors }, 200);
  });
  app.openapi(limitsPutRoute, async (c) => {
    const b = c.req.valid("json");
    const q = await pickQueue(s, b.queue);
    const out = await s.engine.setMaxWaiting(q, b.maxWaitingVisitors, b.previousMaxWaitingVisitors);
    await audit(s, c, "queue.limits", {
      queue: q,
      maxWaitingVisitors: b.maxWaitingVisitors,
      previousMaxWaitingVisitors: b.previousMaxWaitingVisitors,
    });
    return c.json({ queue: q, maxWaitingVisitors: out.maxWaitingVisitors }, 200);
  });

  return app;
}
