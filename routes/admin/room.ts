/**
 * A queue's room switch in the admin API: `GET /api/admin/room` (the switch, the mode in effect
 * and the Safety Net's state) and `PUT /api/admin/room` (every change is audited). Bad input
 * (an unknown mode, `auto` without thresholds, thresholds in the wrong order) is 400 with every
 * failing field, and nothing changes.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Services } from "../services.ts";
import {
  MAX_CLOSED_MESSAGE,
  MAX_RETRY_AFTER,
  MIN_RETRY_AFTER,
  ROOM_MODES,
} from "../../lib/room/modes.ts";
import { MAX_CALM_MINUTES } from "../../lib/room/safety_net.ts";
import type { RoomSwitchState } from "../../lib/room/switches.ts";
import { validationHook } from "../../http/validation.ts";
import { adminSecurity, errs, jsonBody, jsonOk } from "../schemas.ts";
import { type AdminEnv, audit } from "./session.ts";
import { OptQueue, pickQueue } from "./settings.ts";
import { closedObject } from "../closed_object.ts";

const Count = z.number().int().min(0).max(100_000_000);
const Thresholds = closedObject({
  joinsPerMinuteHigh: Count.nullable().openapi({
    description: "joins per minute at or above which the room starts queueing; null: not used",
  }),
  joinsPerMinuteLow: Count.nullable().openapi({
    description: "joins per minute below which it may stop (1 or more, below joinsPerMinuteHigh)",
  }),
  holdingHigh: Count.nullable().openapi({
    description:
      "visitors holding slots at or above which the room starts queueing; null: not used",
  }),
  holdingLow: Count.nullable().openapi({
    description: "holding below which it may stop (1 or more, below holdingHigh)",
  }),
  calmMinutes: z.number().int().min(1).max(MAX_CALM_MINUTES).openapi({
    description: "minutes both figures must stay below their lower thresholds before the " +
      "room lets everyone through again",
  }),
}).openapi("SafetyNetThresholds");

const Mode = z.enum(ROOM_MODES).openapi({
  description: "`normal`; `queue_all` (everyone waits, even with free capacity); `passthrough` " +
    "(nobody waits; admissions still counted); `reject` (closed: a page with closedMessage, " +
    "503 `room_closed` with Retry-After for API clients); `auto` (the Safety Net: passthrough " +
    "until a threshold is crossed, then normal until calm again)",
});

const RoomView = z.object({
  queue: z.string(),
  mode: Mode,
  effectiveMode: z.enum(["normal", "queue_all", "passthrough", "reject"]).openapi({
    description: "what visitors meet now (auto resolves to passthrough or normal)",
  }),
  closedMessage: z.string(),
  retryAfterSeconds: z.number().int(),
  safetyNet: Thresholds.nullable(),
  safetyNetState: z.object({
    queueing: z.boolean(),
    since: z.number().int().openapi({ description: "unix ms of the last switch" }),
    calmSince: z.number().int().nullable(),
    last: z.object({ joinsPerMinute: z.number(), holding: z.number() }).nullable(),
  }).nullable().openapi({ description: "the Safety Net's shared state (mode auto only)" }),
  updatedAt: z.number().int(),
}).openapi("RoomSwitch");

const Input = closedObject({
  queue: OptQueue,
  mode: Mode,
  closedMessage: z.string().max(MAX_CLOSED_MESSAGE).optional().openapi({
    description: "the operator's text on the closed page (kept when omitted)",
  }),
  retryAfterSeconds: z.number().int().min(MIN_RETRY_AFTER).max(MAX_RETRY_AFTER).optional(),
  safetyNet: Thresholds.nullable().optional().openapi({
    description: "required for auto (kept when omitted)",
  }),
});

const getRoute = createRoute({
  method: "get",
  path: "/api/admin/room",
  summary: "Read a queue's room switch, the mode in effect and the Safety Net's state",
  security: adminSecurity,
  request: { query: z.object({ queue: OptQueue }) },
  responses: { 200: jsonOk(RoomView, "the switch"), ...errs(400, 401, 403, 404) },
});
const putRoute = createRoute({
  method: "put",
  path: "/api/admin/room",
  summary: "Switch a queue's room: normal, queue_all, passthrough, reject or auto",
  security: adminSecurity,
  request: { body: jsonBody(Input) },
  responses: { 200: jsonOk(RoomView, "the new switch"), ...errs(400, 401, 403, 404) },
});

/** The admin view of a queue's switch. */
export function roomView(q: string, st: RoomSwitchState) {
  const r = st.record;
  return {
    queue: q,
    mode: r.mode,
    effectiveMode: st.effective,
    closedMessage: r.closedMessage,
    retryAfterSeconds: r.retryAfterSeconds,
    safetyNet: r.safetyNet,
    safetyNetState: st.auto,
    updatedAt: r.updatedAt,
  };
}

/** `GET`/`PUT /api/admin/room` (behind the admin session gate of every admin path). */
export function roomRoutes(s: Services) {
  const app = new OpenAPIHono<AdminEnv>({ defaultHook: validationHook });
  app.openapi(getRoute, async (c) => {
    const q = await pickQueue(s, c.req.valid("query").queue);
    await s.engine.settings(q); // 404 unknown_queue
    s.rooms.invalidate(q);
    return c.json(roomView(q, await s.rooms.current(q)), 200);
  });
  app.openapi(putRoute, async (c) => {
    const { queue, ...input } = c.req.valid("json");
    const q = await pickQueue(s, queue);
    await s.engine.settings(q);
    const before = (await s.rooms.current(q)).record.mode;
    const st = await s.rooms.save(q, input);
    await audit(s, c, "queue.room", {
      queue: q,
      from: before,
      mode: st.record.mode,
      retryAfterSeconds: st.record.retryAfterSeconds,
      safetyNet: st.record.safetyNet,
    });
    return c.json(roomView(q, st), 200);
  });
  return app;
}
