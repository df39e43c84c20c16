/**
 * A queue's path rules in the admin API: `GET /api/admin/path-rules` and `PUT` (the whole ordered
 * list at once; first match wins; audited). Bad input (an invalid pattern, a route to no queue,
 * a rule an earlier one always shadows) is 400 naming every failing rule, and nothing changes.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Services } from "../services.ts";
import { MAX_PATTERN, MAX_RULES, RULE_ACTIONS, RULE_MATCHES } from "../../lib/paths/rules.ts";
import { validationHook } from "../../http/validation.ts";
import { adminSecurity, errs, jsonBody, jsonOk, QueueName } from "../schemas.ts";
import { type AdminEnv, audit } from "./session.ts";
import { OptQueue, pickQueue } from "./settings.ts";
import { closedObject } from "../closed_object.ts";

const Rule = closedObject({
  match: z.enum(RULE_MATCHES).openapi({
    description: "`path` (a pattern: `*` within a segment, `**` across), `asset` (file " +
      "extensions, comma-separated), `query` (`name` or `name=value`), `address` (IP or CIDR)",
  }),
  pattern: z.string().min(1).max(MAX_PATTERN),
  action: z.enum(RULE_ACTIONS).openapi({
    description: "`queue` (needs an access token), `bypass` (straight through), `route` (to " +
      "the waiting room of `queue`, whose tokens it then needs)",
  }),
  queue: QueueName.optional().openapi({ description: "the queue a route rule sends to" }),
  note: z.string().max(200).optional(),
}).openapi("PathRule");

const RulesView = z.object({
  queue: z.string(),
  rules: z.array(Rule),
  updatedAt: z.number().int(),
}).openapi("PathRules");

const getRoute = createRoute({
  method: "get",
  path: "/api/admin/path-rules",
  summary: "Read a queue's path rules (origin proxy and forward-auth checks)",
  security: adminSecurity,
  request: { query: z.object({ queue: OptQueue }) },
  responses: { 200: jsonOk(RulesView, "the rules, in order"), ...errs(400, 401, 403, 404) },
});
const putRoute = createRoute({
  method: "put",
  path: "/api/admin/path-rules",
  summary: "Replace a queue's path rules (an ordered list; first match wins)",
  security: adminSecurity,
  request: {
    body: jsonBody(closedObject({ queue: OptQueue, rules: z.array(Rule).max(MAX_RULES) })),
  },
  responses: { 200: jsonOk(RulesView, "the new rules"), ...errs(400, 401, 403, 404) },
});

/** `GET`/`PUT /api/admin/path-rules` (behind the admin session gate of every admin path). */
export function pathRuleRoutes(s: Services) {
  const app = new OpenAPIHono<AdminEnv>({ defaultHook: validationHook });
  app.openapi(getRoute, async (c) => {
    const q = await pickQueue(s, c.req.valid("query").queue);
    await s.engine.settings(q); // 404 unknown_queue
    return c.json({ queue: q, ...(await s.paths.read(q)) }, 200);
  });
  app.openapi(putRoute, async (c) => {
    const b = c.req.valid("json");
    const q = await pickQueue(s, b.queue);
    await s.engine.settings(q);
    const rec = await s.paths.save(q, b.rules, await s.engine.queueNames());
    await audit(s, c, "queue.path-rules", {
      queue: q,
      rules: rec.rules.map((r) =>
        `${r.match}:${r.pattern} -> ${r.action}${r.queue ? ` ${r.queue}` : ""}`
      ),
    });
    return c.json({ queue: q, ...rec }, 200);
  });
  return app;
}
