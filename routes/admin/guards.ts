import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Services } from "../services.ts";
import { BadRequestError } from "../../lib/errors.ts";
import { GUARD_BOUNDS, type JoinGuardSettings, writeJoinGuards } from "../../lib/guard/settings.ts";
import { validationHook } from "../../http/validation.ts";
import { adminSecurity, errs, JoinGuardCounts, jsonBody, jsonOk, QueueName } from "../schemas.ts";
import { pickQueue } from "./settings.ts";
import { type AdminEnv, adminSession, audit } from "./session.ts";
import { closedObject } from "../closed_object.ts";

const Mode = z.enum(["off", "on", "auto"]).openapi({
  description: "bot challenge on join: never, always, or automatic (on while the join rate or " +
    "the line is at or above its threshold)",
});
const Provider = z.enum(["builtin", "turnstile", "both"]).openapi({
  description: "which challenge: the built-in proof of work, Turnstile, or both (without a live " +
    "Turnstile widget, or while Turnstile cannot be reached, the built-in one stands in)",
});
const num = (k: keyof typeof GUARD_BOUNDS) =>
  z.number().int().min(GUARD_BOUNDS[k][0]).max(GUARD_BOUNDS[k][1]);

const GuardsView = z.object({
  queue: z.string(),
  challenge: Mode,
  provider: Provider,
  difficulty: num("difficulty").openapi({
    description: "base difficulty: expected SHA-256 tries for one visitor (rises with the " +
      "client's recent attempts and with load)",
  }),
  autoJoinsPerMinute: num("autoJoinsPerMinute"),
  autoWaiting: num("autoWaiting"),
  requireEnqueueToken: z.boolean(),
  shadowLine: z.boolean().openapi({
    description: "with the challenge on: clients that fail it (a wrong, forged or replayed " +
      "solution) or take new places at shadowOverLimitFactor times the per-client limit get a " +
      "place in a line that looks real but never admits, instead of an error",
  }),
  shadowOverLimitFactor: num("shadowOverLimitFactor").openapi({
    description: "times the per-client limit at which refusals turn into shadow places (0: never)",
  }),
  /** Whether the challenge is on right now (automatic mode: a threshold is reached). */
  active: z.boolean(),
  joinsPerMinute: z.number(),
  waiting: z.number().int(),
  turnstileLive: z.boolean().openapi({ description: "a Turnstile widget is live and reachable" }),
  enqueueSecretSet: z.boolean().openapi({ description: "ENQUEUE_SECRET is configured" }),
  lastHour: JoinGuardCounts,
}).openapi("JoinGuards");

const OptQueue = QueueName.optional().openapi({ description: "default queue when omitted" });

const getRoute = createRoute({
  method: "get",
  path: "/api/admin/join-guards",
  summary:
    "The queue's join guards (bot challenge, enqueue tokens) and their counts of the last hour",
  security: adminSecurity,
  request: { query: z.object({ queue: OptQueue }) },
  responses: { 200: jsonOk(GuardsView, "the guards"), ...errs(400, 401, 403, 404) },
});
const putRoute = createRoute({
  method: "put",
  path: "/api/admin/join-guards",
  summary: "Change the queue's join guards (fields left out keep their value)",
  security: adminSecurity,
  request: {
    body: jsonBody(
      closedObject({
        queue: OptQueue,
        challenge: Mode.optional(),
        provider: Provider.optional(),
        difficulty: num("difficulty").optional(),
        autoJoinsPerMinute: num("autoJoinsPerMinute").optional(),
        autoWaiting: num("autoWaiting").optional(),
        requireEnqueueToken: z.boolean().optional(),
        shadowLine: z.boolean().optional(),
        shadowOverLimitFactor: num("shadowOverLimitFactor").optional(),
      }),
    ),
  },
  responses: { 200: jsonOk(GuardsView, "the saved guards"), ...errs(400, 401, 403, 404) },
});

/** The admin's view of a queue's guards: settings, whether on now, load, counts. */
async function guardsView(s: Services, q: string, g?: JoinGuardSettings) {
  const settings = g ?? (await s.engine.settings(q)).joinGuards;
  const load = {
    joinsPerMinute: await s.guards.rates.perMinute(q),
    waiting: await s.guards.waiting(q),
  };
  return {
    queue: q,
    ...settings,
    active: s.guards.auto.active(q, settings, load, s.clock.now()),
    joinsPerMinute: Math.round(load.joinsPerMinute * 10) / 10,
    waiting: load.waiting,
    turnstileLive: (await s.guards.turnstile.siteKey()) !== null,
    enqueueSecretSet: s.guards.enqueue !== null,
    lastHour: await s.guards.stats.lastHour(q),
  };
}

/** `GET`/`PUT /api/admin/join-guards` behind the admin session. */
export function guardRoutes(s: Services) {
  const app = new OpenAPIHono<AdminEnv>({ defaultHook: validationHook });
  app.use("/api/admin/join-guards", adminSession(s));
  app.openapi(getRoute, async (c) => {
    const q = await pickQueue(s, c.req.valid("query").queue);
    await s.engine.settings(q); // 404 unknown_queue
    return c.json(await guardsView(s, q), 200);
  });
  app.openapi(putRoute, async (c) => {
    const { queue, ...patch } = c.req.valid("json");
    const q = await pickQueue(s, queue);
    await s.engine.settings(q);
    if (patch.requireEnqueueToken && !s.guards.enqueue) {
      throw new BadRequestError(
        "requireEnqueueToken: set ENQUEUE_SECRET first (the service needs it to check tokens)",
        { fields: [{ path: "requireEnqueueToken", message: "ENQUEUE_SECRET is not set" }] },
      );
    }
    const saved = await writeJoinGuards(s.kv, q, patch);
    s.engine.ctx.invalidate(q);
    await audit(s, c, "queue.joinGuards", { queue: q, ...patch });
    return c.json(await guardsView(s, q, saved), 200);
  });
  return app;
}
