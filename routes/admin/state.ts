import { withSessionMetrics } from "../../lib/session/stats.ts";
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Services } from "../services.ts";
import { resetService } from "../../lib/admin/reset.ts";
import { accessMetrics } from "../../lib/access/mod.ts";
import { ChallengeState, challengeState } from "./challenge_view.ts";
import { listInvites } from "../../lib/admin/invites.ts";
import { listUsers } from "../../lib/admin/users.ts";
import { BrandingInput, readBranding } from "../../lib/branding.ts";
import { destinationFor } from "../../lib/destination.ts";
import { readWebhookSettings } from "../../lib/webhooks_settings.ts";
import { bearerOnly } from "../bearer.ts";
import { adminSecurity, errs, HealthSnapshotView, jsonOk, Metrics, QueueName } from "../schemas.ts";
import { closedObject } from "../closed_object.ts";
import { type AdminEnv, adminSession, audit, secureCookies } from "./session.ts";
import { pickQueue } from "./settings.ts";
import { GeoBlockView } from "./access.ts";
import { validationHook } from "../../http/validation.ts";
import { visitorCookie } from "../../http/cookies.ts";

/** The branding record (every field). */
export const BrandingView = BrandingInput.required().openapi("Branding");
const loose = z.record(z.string(), z.unknown());

const stateRoute = createRoute({
  method: "get",
  path: "/api/admin/state",
  summary: "Everything the control room shows: branding, metrics, me, team, challenge, webhooks",
  security: adminSecurity,
  responses: {
    200: jsonOk(
      z.object({
        branding: BrandingView,
        metrics: z.object({ queues: z.array(Metrics) }),
        me: loose,
        team: z.object({ users: z.array(loose), invites: z.array(loose) }),
        challenge: ChallengeState,
        webhooks: loose,
      }),
      "state",
    ),
    ...errs(400, 401, 403, 404),
  },
});
const metricsRoute = createRoute({
  method: "get",
  path: "/api/admin/metrics",
  summary: "Live metrics of every queue, country-block hits and origin health (polled every 5 s)",
  security: adminSecurity,
  responses: {
    200: jsonOk(
      z.object({
        at: z.number().int(),
        queues: z.array(Metrics),
        geoBlock: GeoBlockView,
        health: HealthSnapshotView,
      }),
      "metrics",
    ),
    ...errs(400, 401, 403, 404),
  },
});
const passRoute = createRoute({
  method: "post",
  path: "/api/admin/pass",
  summary: "Admission cookie for this browser that takes no slot",
  security: adminSecurity,
  request: {
    body: {
      content: { "application/json": { schema: closedObject({ queue: QueueName.optional() }) } },
    },
  },
  responses: {
    200: jsonOk(
      z.object({ redirectTo: z.string(), queue: z.string(), exp: z.number().int() }),
      "pass set as tg_access",
    ),
    ...errs(400, 401, 403, 404),
  },
});
const resetRoute = createRoute({
  method: "post",
  path: "/api/admin/reset",
  summary:
    "Factory reset (Bearer TOKEN_SECRET only): clears admins, edge, challenge, origin, webhooks, mail",
  security: [{ operatorBearer: [] }],
  responses: {
    200: jsonOk(z.object({ reset: z.literal(true), cleared: z.array(z.string()) }), "done"),
    ...errs(401),
  },
});

/** Control-room state, live metrics, branding, the admin pass and the factory reset. */
export function stateRoutes(s: Services) {
  const app = new OpenAPIHono<AdminEnv>({ defaultHook: validationHook });
  const session = adminSession(s);
  for (
    const p of ["/api/admin/state", "/api/admin/metrics", "/api/admin/pass"]
  ) {
    app.use(p, session);
  }
  app.use("/api/admin/reset", bearerOnly(s));

  app.openapi(stateRoute, async (c) => {
    const me = c.get("admin");
    const now = s.clock.now();
    const [branding, queues, users, invites, webhooks, challenge] = await Promise.all([
      readBranding(s.kv),
      s.engine.allMetrics().then((all) => Promise.all(all.map((m) => withSessionMetrics(s.kv, m)))),
      listUsers(s.kv),
      listInvites(s.kv, now),
      readWebhookSettings(s.kv, s.config.TOKEN_SECRET),
      challengeState(s),
    ]);
    const self = users.find((u) => u.id === me.id) ?? { id: me.id, username: me.username };
    return c.json({
      branding,
      metrics: { queues },
      me: self,
      team: { users, invites },
      challenge,
      webhooks,
    }, 200);
  });
  app.openapi(metricsRoute, async (c) => {
    const now = s.clock.now();
    const [queues, access] = await Promise.all([
      s.engine.allMetrics().then((all) => Promise.all(all.map((m) => withSessionMetrics(s.kv, m)))),
      accessMetrics(s.kv, s.access, now),
    ]);
    return c.json({ at: now, queues, ...access }, 200);
  });
  app.openapi(passRoute, async (c) => {
    const q = await pickQueue(s, c.req.valid("json").queue);
    await s.engine.settings(q); // 404 for an unknown queue
    const me = c.get("admin");
    const now = s.clock.now();
    const ttl = s.config.ACCESS_TOKEN_TTL_SECONDS;
    // A token only: no visitor record, so no slot is taken and capacity is untouched.
    const token = await s.signer.signAccessToken(`admin-${me.id}`, q, now, ttl);
    // The visitor cookie exactly as the visitor API writes it (one writer, http/cookies.ts).
    c.header("Set-Cookie", visitorCookie("tg_access", token, ttl, secureCookies(s, c)), {
      append: true,
    });
    await audit(s, c, "pass.mint", { queue: q });
    const branding = await readBranding(s.kv, q);
    return c.json({
      redirectTo: await destinationFor(s, branding, null),
      queue: q,
      exp: Math.floor(now / 1000) + ttl,
    }, 200);
  });
  app.openapi(resetRoute, async (c) => {
    const cleared = await resetService(s.kv);
    s.origin.invalidate(); // this instance must not proxy on an override that is gone
    await audit(s, c, "service.reset", { cleared });
    return c.json({ reset: true as const, cleared }, 200);
  });
  return app;
}
