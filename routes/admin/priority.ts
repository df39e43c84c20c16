/**
 * Priority lanes and priority codes in the admin API (engine-independent parts; the join engine
 * places a visitor with a redeemed code in its lane). Lanes: `GET`/`PUT /api/admin/lanes`. Codes:
 * `GET /api/admin/priority-codes` (listed without the codes, which are stored only as keyed
 * hashes), `POST` (issues up to 1000, returned once), `DELETE /api/admin/priority-codes/{id}`
 * (revokes). Every write is audited; the codes themselves never reach the audit log.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Services } from "../services.ts";
import { BadRequestError } from "../../lib/errors.ts";
import {
  issueCodes,
  listCodes,
  MAX_CODES_PER_ISSUE,
  MAX_USES,
  revokeCode,
} from "../../lib/priority/codes.ts";
import { LANE_NAME_RE, MAX_LANES } from "../../lib/priority/lanes.ts";
import { readLanes, saveLanes } from "../../lib/priority/store.ts";
import { validationHook } from "../../http/validation.ts";
import { adminSecurity, errs, jsonBody, jsonOk } from "../schemas.ts";
import { type AdminEnv, audit } from "./session.ts";
import { OptQueue, pickQueue } from "./settings.ts";
import { closedObject } from "../closed_object.ts";

const LaneName = z.string().regex(LANE_NAME_RE, "a-z, 0-9, _ and -, up to 32 characters");
const Lane = closedObject({
  name: LaneName,
  share: z.number().gt(0).lt(1).optional().openapi({
    description: "share of each second's admissions (0.3 = 30%)",
  }),
  strict: z.boolean().optional().openapi({ description: "admitted before everyone else" }),
}).openapi("PriorityLane");
const LanesView = z.object({
  queue: z.string(),
  lanes: z.array(Lane),
  updatedAt: z.number().int(),
}).openapi("PriorityLanes");

const CodeRecord = z.object({
  id: z.string(),
  queue: z.string(),
  lane: z.string(),
  label: z.string(),
  maxUses: z.number().int(),
  uses: z.number().int(),
  expiresAt: z.number().int().nullable(),
  createdAt: z.number().int(),
  createdBy: z.string(),
  revokedAt: z.number().int().nullable(),
}).openapi("PriorityCode");

const q = z.object({ queue: OptQueue });
const lanesGet = createRoute({
  method: "get",
  path: "/api/admin/lanes",
  summary: "Read a queue's priority lanes",
  security: adminSecurity,
  request: { query: q },
  responses: { 200: jsonOk(LanesView, "the lanes"), ...errs(400, 401, 403, 404) },
});
const lanesPut = createRoute({
  method: "put",
  path: "/api/admin/lanes",
  summary: "Set a queue's priority lanes (shares of each second's admissions, or strict)",
  security: adminSecurity,
  request: {
    body: jsonBody(closedObject({ queue: OptQueue, lanes: z.array(Lane).max(MAX_LANES) })),
  },
  responses: { 200: jsonOk(LanesView, "the new lanes"), ...errs(400, 401, 403, 404) },
});
const codesGet = createRoute({
  method: "get",
  path: "/api/admin/priority-codes",
  summary: "List a queue's priority codes (never the codes themselves)",
  security: adminSecurity,
  request: { query: q },
  responses: {
    200: jsonOk(z.object({ queue: z.string(), codes: z.array(CodeRecord) }), "the codes"),
    ...errs(400, 401, 403, 404),
  },
});
const codesPost = createRoute({
  method: "post",
  path: "/api/admin/priority-codes",
  summary: "Issue priority codes for a lane (the codes are returned once, here)",
  security: adminSecurity,
  request: {
    body: jsonBody(closedObject({
      queue: OptQueue,
      lane: LaneName,
      count: z.number().int().min(1).max(MAX_CODES_PER_ISSUE).default(1),
      maxUses: z.number().int().min(1).max(MAX_USES).default(1).openapi({
        description: "1: single-use",
      }),
      expiresAt: z.number().int().min(0).nullable().default(null).openapi({
        description: "unix ms; null: no expiry",
      }),
      label: z.string().max(100).default(""),
    })),
  },
  responses: {
    200: jsonOk(
      z.object({ queue: z.string(), codes: z.array(z.string()), records: z.array(CodeRecord) }),
      "the codes (shown once) and their records, in the same order",
    ),
    ...errs(400, 401, 403, 404),
  },
});
const codesDelete = createRoute({
  method: "delete",
  path: "/api/admin/priority-codes/{id}",
  summary: "Revoke a priority code (revoking twice is no error)",
  security: adminSecurity,
  request: { params: z.object({ id: z.string().min(1).max(64) }), query: q },
  responses: { 200: jsonOk(CodeRecord, "the revoked code"), ...errs(400, 401, 403, 404) },
});

/** The lanes and codes routes (behind the admin session gate of every admin path). */
export function priorityRoutes(s: Services) {
  const app = new OpenAPIHono<AdminEnv>({ defaultHook: validationHook });
  const queueOf = async (name?: string) => {
    const queue = await pickQueue(s, name);
    await s.engine.settings(queue); // 404 unknown_queue
    return queue;
  };
  app.openapi(lanesGet, async (c) => {
    const queue = await queueOf(c.req.valid("query").queue);
    const { lanes, updatedAt } = await readLanes(s.kv, queue);
    return c.json({ queue, lanes, updatedAt }, 200);
  });
  app.openapi(lanesPut, async (c) => {
    const b = c.req.valid("json");
    const queue = await queueOf(b.queue);
    const rec = await saveLanes(s.kv, s.clock, queue, b.lanes);
    await audit(s, c, "queue.lanes", { queue, lanes: rec.lanes });
    return c.json({ queue, lanes: rec.lanes, updatedAt: rec.updatedAt }, 200);
  });
  app.openapi(codesGet, async (c) => {
    const queue = await queueOf(c.req.valid("query").queue);
    return c.json({ queue, codes: await listCodes(s.kv, queue) }, 200);
  });
  app.openapi(codesPost, async (c) => {
    const b = c.req.valid("json");
    const queue = await queueOf(b.queue);
    const { lanes } = await readLanes(s.kv, queue);
    if (!lanes.some((l) => l.name === b.lane)) {
      throw new BadRequestError(`lane: queue "${queue}" has no lane "${b.lane}"`, {
        fields: [{ path: "lane", message: `no lane "${b.lane}" (define it first)` }],
      });
    }
    const admin = c.get("admin") as { username?: string } | undefined;
    const out = await issueCodes(s.kv, s.clock, s.config.TOKEN_SECRET, {
      queue,
      lane: b.lane,
      count: b.count,
      maxUses: b.maxUses,
      expiresAt: b.expiresAt,
      label: b.label,
      createdBy: admin?.username ?? "bearer",
    });
    await audit(s, c, "queue.priority-codes.issue", {
      queue,
      lane: b.lane,
      count: b.count,
      maxUses: b.maxUses,
      expiresAt: b.expiresAt,
      ids: out.records.map((r) => r.id),
    });
    return c.json({ queue, ...out }, 200);
  });
  app.openapi(codesDelete, async (c) => {
    const queue = await queueOf(c.req.valid("query").queue);
    const id = c.req.valid("param").id;
    const rec = await revokeCode(s.kv, s.clock, queue, id);
    await audit(s, c, "queue.priority-codes.revoke", { queue, id });
    return c.json(rec, 200);
  });
  return app;
}
