import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Services } from "../services.ts";
import { BadRequestError } from "../../lib/errors.ts";
import {
  attachDomainLive,
  checkLive,
  detachDomainLive,
  edgeState,
  fixProxyLive,
  listDomainsLive,
  saveEdge,
  setIpGeolocationLive,
  setSslLive,
} from "../../lib/edge/live.ts";
import {
  ApiToken,
  AttachOutcome,
  DnsName,
  DomainStatus,
  EdgeLinkView,
  FixTarget,
  ProxyOutcome,
  RecordView,
  SettingOutcome,
} from "./edge_schemas.ts";
import { adminSecurity, jsonBody, jsonOk } from "../schemas.ts";
import { type AdminEnv, adminSession, audit } from "./session.ts";
import { edgeErrors, optionalJson, setupEdgeRoutes } from "./setup_edge.ts";
import { validationHook } from "../../http/validation.ts";

const base = (path: string, summary: string, out: z.ZodType) => ({
  path: `/api/admin/edge${path}`,
  summary,
  security: adminSecurity,
  responses: { 200: jsonOk(out, "done"), ...edgeErrors },
});

const getRoute = createRoute({
  method: "get",
  ...base("", "The edge link (zone, hostname, domains; never the token)", EdgeLinkView),
});
const saveRoute = createRoute({
  method: "put",
  ...base(
    "",
    "Save zone, hostname and/or API token after checking them with Cloudflare (nothing saved on failure)",
    EdgeLinkView.extend({
      zoneStatus: z.string(),
      tokenReplaced: z.boolean(),
      untrackedDomains: z.array(z.string()).openapi({
        description: "domains no longer tracked because the zone or hostname changed",
      }),
    }),
  ),
  request: {
    body: jsonBody(
      z.object({
        zone: DnsName.optional(),
        hostname: DnsName.optional(),
        token: ApiToken.optional(),
      }).refine((b) => b.zone || b.hostname || b.token, {
        message: "send zone, hostname or token",
      }),
    ),
  },
});
const checkRoute = createRoute({
  method: "post",
  ...base(
    "/check",
    "Read token, zone, proxied DNS, encryption mode, IP geolocation and domains; say what is wrong",
    z.object({
      ok: z.boolean(),
      items: z.array(z.object({ item: z.string(), ok: z.boolean(), message: z.string() })),
    }).openapi("EdgeCheck"),
  ),
});
const fixProxyRoute = createRoute({
  method: "post",
  ...base(
    "/fix-proxy",
    "Proxy the hostname's DNS records (or create one for `target`) and turn IP geolocation on",
    z.object({ dns: ProxyOutcome, ipGeolocation: SettingOutcome }),
  ),
  request: { body: optionalJson(z.object({ target: FixTarget })) },
});
const geoRoute = createRoute({
  method: "put",
  ...base(
    "/ip-geolocation",
    "Turn IP geolocation on or off; off also clears the country block",
    z.object({ enabled: z.boolean(), changed: z.boolean(), countryBlockCleared: z.boolean() }),
  ),
  request: { body: jsonBody(z.object({ enabled: z.boolean() })) },
});
const sslRoute = createRoute({
  method: "put",
  ...base(
    "/ssl",
    "Set the zone's encryption mode to Full (strict)",
    z.object({ sslMode: z.string(), changed: z.boolean(), edge: EdgeLinkView }),
  ),
  request: { body: optionalJson(z.object({ mode: z.literal("strict").optional() })) },
});
const DomainBody = z.object({ domain: DnsName });
const DomainList = z.array(z.string());
const domainsGetRoute = createRoute({
  method: "get",
  ...base(
    "/domains",
    "The custom domains and their state in Cloudflare",
    z.object({ hostname: z.string(), zoneName: z.string(), domains: z.array(DomainStatus) }),
  ),
});
const domainsPutRoute = createRoute({
  method: "put",
  ...base(
    "/domains",
    "Attach a custom domain: a proxied CNAME domain -> hostname in the zone (idempotent)",
    z.object({ attached: AttachOutcome, domains: DomainList }),
  ),
  request: { body: jsonBody(DomainBody) },
});
const domainsDeleteRoute = createRoute({
  method: "delete",
  ...base(
    "/domains",
    "Detach a custom domain (body {domain} or ?domain=): deletes its CNAME to the hostname",
    z.object({
      detached: z.boolean(),
      domain: z.string(),
      deleted: z.boolean(),
      leftAlone: z.array(RecordView),
      domains: DomainList,
    }),
  ),
  request: {
    query: z.object({ domain: DnsName.optional() }),
    body: optionalJson(DomainBody.partial()),
  },
});

/** The edge controls (`/api/admin/edge*`) and the setup's edge steps. */
export function edgeRoutes(s: Services) {
  const app = new OpenAPIHono<AdminEnv>({ defaultHook: validationHook });
  app.use("/api/admin/edge", adminSession(s));
  app.use("/api/admin/edge/*", adminSession(s));

  app.openapi(getRoute, async (c) => c.json(await edgeState(s), 200));
  app.openapi(saveRoute, async (c) => {
    const b = c.req.valid("json");
    const out = await saveEdge(s, b);
    await audit(s, c, "edge.save", {
      zone: out.zoneName,
      hostname: out.hostname,
      tokenReplaced: out.tokenReplaced,
      untrackedDomains: out.untrackedDomains,
    });
    return c.json(out, 200);
  });
  app.openapi(checkRoute, async (c) => {
    const out = await checkLive(s);
    await audit(s, c, "edge.check", {
      ok: out.ok,
      problems: out.items.filter((i) => !i.ok).length,
    });
    return c.json(out, 200);
  });
  app.openapi(fixProxyRoute, async (c) => {
    const target = c.req.valid("json")?.target;
    const out = await fixProxyLive(s, target);
    await audit(s, c, "edge.fix_proxy", {
      proxiedNow: out.dns.changed.length,
      created: out.dns.created !== null,
      ipGeolocationChanged: out.ipGeolocation.changed,
    });
    return c.json(out, 200);
  });
  app.openapi(geoRoute, async (c) => {
    const out = await setIpGeolocationLive(s, c.req.valid("json").enabled);
    // The join path caches the rules for a second; this instance must stop blocking at once.
    if (out.countryBlockCleared) s.access.rules.invalidate();
    await audit(s, c, "edge.ip_geolocation", out);
    return c.json(out, 200);
  });
  app.openapi(sslRoute, async (c) => {
    const out = await setSslLive(s);
    await audit(s, c, "edge.ssl", { sslMode: out.sslMode, changed: out.changed });
    return c.json(out, 200);
  });
  app.openapi(domainsGetRoute, async (c) => c.json(await listDomainsLive(s), 200));
  app.openapi(domainsPutRoute, async (c) => {
    const out = await attachDomainLive(s, c.req.valid("json").domain);
    await audit(s, c, "edge.domain.attach", {
      domain: out.attached.domain,
      created: out.attached.created,
    });
    return c.json(out, 200);
  });
  app.openapi(domainsDeleteRoute, async (c) => {
    const domain = c.req.valid("query").domain ?? c.req.valid("json")?.domain;
    if (!domain) {
      const message = "name the domain: body {domain} or ?domain=";
      throw new BadRequestError(message, { fields: [{ path: "domain", message }] });
    }
    const out = await detachDomainLive(s, domain);
    await audit(s, c, "edge.domain.detach", { domain: out.domain, deleted: out.deleted });
    return c.json(out, 200);
  });
  app.route("/", setupEdgeRoutes(s));
  return app;
}
