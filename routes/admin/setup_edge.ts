import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Services } from "../services.ts";
import {
  ApiToken,
  AttachOutcome,
  DnsName,
  FixTarget,
  PendingEdgeView,
  ProxyOutcome,
  RecordView,
  SettingOutcome,
} from "./edge_schemas.ts";
import {
  attachDomainStep,
  fixStep,
  pendingState,
  sslStep,
  verifyTokenStep,
  verifyZoneStep,
} from "../../lib/edge/setup.ts";
import { adminSecurity, ErrorEnvelope, jsonBody, jsonOk } from "../schemas.ts";
import { type AdminEnv, adminSession, audit } from "./session.ts";
import { validationHook } from "../../http/validation.ts";

const err = (description: string) => ({
  description,
  content: { "application/json": { schema: ErrorEnvelope } },
});

/** Error responses of every edge route (setup steps and live controls). */
export const edgeErrors = {
  400: err(
    "invalid input (`bad_request`), or Cloudflare refused: bad token, missing permission, " +
      "zone not found (`edge_error`, details.kind)",
  ),
  401: err("no admin session (`unauthorized`)"),
  403: err("stale ToS or a foreign Origin (`forbidden`)"),
  409: err(
    "a step is missing, no edge is linked, the token is unreadable after a TOKEN_SECRET " +
      "rotation, no DNS record to proxy, or the domain is taken (`conflict`, details.reason)",
  ),
  429: err("Cloudflare rate limits the calls (`edge_error`, with `Retry-After`)"),
  502: err("Cloudflare unreachable or failing (`edge_error`)"),
  504: err("Cloudflare did not answer within PROVIDER_TIMEOUT_MS (`edge_error`)"),
};

/** A JSON body the call may also leave out. */
export const optionalJson = <T extends z.ZodType>(schema: T) => ({
  required: false,
  content: { "application/json": { schema } },
});

const step = <T extends z.ZodType>(
  method: "post" | "put",
  path: string,
  summary: string,
  body: T,
  out: z.ZodType,
  opts: { bodyOptional?: boolean } = {},
) =>
  createRoute({
    method,
    path: `/api/admin/setup/edge${path}`,
    summary,
    security: adminSecurity,
    request: { body: opts.bodyOptional ? optionalJson(body) : jsonBody(body) },
    responses: { 200: jsonOk(out, "the pending edge setup after the step"), ...edgeErrors },
  });

const getRoute = createRoute({
  method: "get",
  path: "/api/admin/setup/edge",
  summary: "The pending edge setup (which steps are done; never the token)",
  security: adminSecurity,
  responses: { 200: jsonOk(PendingEdgeView, "the pending edge setup"), ...edgeErrors },
});

const tokenRoute = step(
  "post",
  "/token-verify",
  "Check the Cloudflare API token and keep it sealed as pending (writes nothing to the zone)",
  z.object({ token: ApiToken }),
  PendingEdgeView.extend({
    token: z.object({ status: z.string(), expiresOn: z.string().nullable() }),
    keptLaterSteps: z.boolean().openapi({ description: "same token again: later steps kept" }),
  }),
);
const verifyRoute = step(
  "post",
  "/verify",
  "Find the zone by name with the pending token and check the hostname lies in it",
  z.object({ zone: DnsName, hostname: DnsName }),
  PendingEdgeView.extend({ zoneStatus: z.string(), records: z.array(RecordView) }),
);
const fixRoute = step(
  "post",
  "/fix",
  "Proxy the hostname's DNS records (or create one for `target`) and turn IP geolocation on",
  z.object({ target: FixTarget }),
  PendingEdgeView.extend({ dns: ProxyOutcome, ipGeolocation: SettingOutcome }),
  { bodyOptional: true },
);
const sslRoute = step(
  "put",
  "/ssl",
  "Set the zone's encryption mode to Full (strict), or skip the step",
  z.union([z.object({ mode: z.literal("strict") }), z.object({ skip: z.literal(true) })]),
  PendingEdgeView.extend({ sslMode: z.string().nullable(), changed: z.boolean() }),
);
const attachRoute = step(
  "post",
  "/attach-domain",
  "Attach a custom domain: a proxied CNAME domain -> hostname in the zone (idempotent)",
  z.object({ domain: DnsName }),
  PendingEdgeView.extend({ attached: AttachOutcome }),
);

/** The edge steps of the setup wizard (`setup/edge/*`), behind the admin session. */
export function setupEdgeRoutes(s: Services) {
  const app = new OpenAPIHono<AdminEnv>({ defaultHook: validationHook });
  app.use("/api/admin/setup/edge", adminSession(s));
  app.use("/api/admin/setup/edge/*", adminSession(s));

  app.openapi(getRoute, async (c) => c.json(await pendingState(s), 200));
  app.openapi(tokenRoute, async (c) => {
    const out = await verifyTokenStep(s, c.req.valid("json").token);
    await audit(s, c, "edge.setup.token", { keptLaterSteps: out.keptLaterSteps });
    return c.json(out, 200);
  });
  app.openapi(verifyRoute, async (c) => {
    const b = c.req.valid("json");
    const out = await verifyZoneStep(s, b.zone, b.hostname);
    await audit(s, c, "edge.setup.verify", { zone: out.zoneName, hostname: out.hostname });
    return c.json(out, 200);
  });
  app.openapi(fixRoute, async (c) => {
    const out = await fixStep(s, c.req.valid("json")?.target);
    await audit(s, c, "edge.setup.fix", {
      hostname: out.hostname,
      proxiedNow: out.dns.changed.length,
      created: out.dns.created !== null,
      ipGeolocationChanged: out.ipGeolocation.changed,
    });
    return c.json(out, 200);
  });
  app.openapi(sslRoute, async (c) => {
    const out = await sslStep(s, c.req.valid("json"));
    await audit(s, c, "edge.setup.ssl", { ssl: out.ssl, changed: out.changed });
    return c.json(out, 200);
  });
  app.openapi(attachRoute, async (c) => {
    const out = await attachDomainStep(s, c.req.valid("json").domain);
    await audit(s, c, "edge.setup.domain", {
      domain: out.attached.domain,
      created: out.attached.created,
    });
    return c.json(out, 200);
  });
  return app;
}
