import { OpenAPIHono } from "@hono/zod-openapi";
import { createCrawlers } from "./lib/crawlers/mod.ts";
import type { Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { createAccess } from "./lib/access/mod.ts";
import { createChallengeGate } from "./lib/challenge/gate.ts";
import { errorBody } from "./lib/errors.ts";
import { createJoinGuards } from "./lib/guard/mod.ts";
import { HeldEngine } from "./lib/resume/held_engine.ts";
import { MAX_BODY_BYTES } from "./lib/names.ts";
import { OriginSettings } from "./lib/origin/settings.ts";
import { PathRuleSets } from "./lib/paths/store.ts";
import { safetyNetSampler } from "./lib/room/sample.ts";
import { RoomSwitches } from "./lib/room/switches.ts";
import { StoreFailure } from "./lib/store/failure.ts";
import { migrate } from "./lib/store/migrate.ts";
import { live073 } from "./lib/store/migrate_073.ts";
import { createWebhooks } from "./lib/webhooks.ts";
import { SessionKeeper } from "./lib/session/keeper.ts";
import { Signer } from "./lib/tokens.ts";
import { VERSION } from "./lib/version.ts";
import { adminRoutes } from "./routes/admin/index.ts";
import { sessionChecker } from "./routes/admin/session.ts";
import { costRoutes } from "./routes/cost.ts";
import { drawRoutes } from "./routes/draw.ts";
import { assetsOnce } from "./routes/pages/assets.ts";
import { forwardAuthRoutes } from "./routes/forward_auth.ts";
import { operatorRoutes } from "./routes/operator.ts";
import { type OriginGate, originGate, originMiddleware, wasGated } from "./routes/origin.ts";
import { servedFetch } from "./routes/dispatch.ts";
import { pageRoutes } from "./routes/pages.ts";
import { systemRoutes } from "./routes/system.ts";
import { SECURITY_HEADERS } from "./http/response.ts";
import { errorResponse } from "./http/response.ts";
import { frontPage, wantsPage } from "./routes/pages/front.tsx";
import { validationHook } from "./http/validation.ts";
import { emptyJsonBody } from "./http/empty_body.ts";
import { notePublicUrl } from "./http/cookies.ts";
import type { AppDeps, ChallengeGate, EventSink, Services } from "./routes/services.ts";
import { visitorRoutes } from "./routes/visitor.ts";
import { releaseRoutes } from "./routes/release.ts";
import { resumeRoutes } from "./routes/resume.ts";
import { MailService } from "./lib/notify/service.ts";
import { mailJob } from "./lib/notify/mail_job.ts";

export type { AppDeps, ChallengeGate, EventSink, Services };

const ADMIN_PATH = /^\/(admin|api\/admin)(\/|$)/;
/**
 * Strict CSP of the admin app and API: own scripts only plus the challenge widget's origin (its
 * script and frame), frames of our own pages (the branding preview of `/wait?embed=1`), and no
 * framing of the admin itself.
 */
export function adminCsp(turnstileScript: string): string {
  const widget = new URL(turnstileScript).origin;
  return [
    "default-src 'self'",
    `script-src 'self' ${widget}`,
    `frame-src 'self' ${widget}`,
    "style-src 'self'",
    "img-src 'self' data: https:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

export { MAX_BODY_BYTES };

/** Maps any thrown error to the envelope (the one mapper in `http/response.ts`). */
export function onError(err: Error, c: Context): Response {
  return errorResponse(err, c.req.raw);
}

/** Builds the service: its services, the Hono app of every route, and the served handler. */
export async function createApp(deps: AppDeps) {
  const services = await createServices(deps);
  const origin = originGate(services);
  const app = honoApp(services, origin);
  return { app, services, fetch: servedFetch(services, app, origin) };
}

/** Migrates the store, creates the configured queues and wires the services the routes share. */
async function createServices(deps: AppDeps): Promise<Services> {
  const older = await live073(deps.kv);
  if (older !== null) {
    throw new Error(
      `a Tollgate 0.7.3 instance is joining visitors in queue "${older}" on this store: stop ` +
        "every 0.7.3 instance, then start this release (it numbers the line in its tick, 0.7.3 " +
        "in its join commits; the two cannot share a line; see docs/deploy.md)",
    );
  }
  await migrate(deps.kv, undefined, deps.clock.now());
  const signer = new Signer(deps.config.TOKEN_SECRET);
  // The engine behind the holder check of places moved to another device (lib/resume/).
  const engine = new HeldEngine({ ...deps, signer }, deps.autoTick ?? true);
  await engine.ensureQueues(deps.config.QUEUES);
  // Deliveries use `services.fetch` at call time, so a swapped client (tests' TLS trust) applies.
  const webhooks = createWebhooks({ ...deps, fetch: (i, init) => services.fetch(i, init) });
  // The depth event is checked after each tick this instance ran, off the visitor's path.
  engine.onTickRan = (q, { waiting }) => {
    void webhooks.checkDepth(q, waiting).catch(() => {});
    // The Safety Net looks at its figures once a second (a no-op unless the queue is on auto).
    void services.rooms.maybeStep(q);
    // The origin health probe rides on the per-second tick; a KV claim picks one instance.
    void access.health.maybeProbe().catch(() => {});
  };
  const access = createAccess({
    ...deps,
    engine,
    fetch: (i, init) => services.fetch(i, init),
    events: { emit: (e, q, d) => services.events.emit(e, q, d) },
  });
  engine.healthSnapshot = () => access.health.snapshot();
  // Every pause or resume that changes a queue, from any route, emits the `pause` webhook.
  engine.onPauseChanged = (q, paused) => void services.events.emit("pause", q, { paused });
  const services: Services = {
    ...deps,
    engine,
    signer,
    events: webhooks,
    webhooks,
    isAdminSession: () => Promise.resolve(false),
    challenge: createChallengeGate({ ...deps, fetch: (i, init) => services.fetch(i, init) }),
    access,
    mail: new MailService(deps),
    mailJob: () => Promise.resolve(),
    origin: new OriginSettings(deps.kv, deps.clock, deps.config.ORIGIN_URL),
    guards: createJoinGuards(
      { ...deps, fetch: (i, init) => services.fetch(i, init) },
      engine,
      access.hits,
    ),
    sessions: new SessionKeeper({
      kv: deps.kv,
      now: () => deps.clock.now(),
      signer,
      ttlSeconds: deps.config.ACCESS_TOKEN_TTL_SECONDS,
      engine,
    }),
    rooms: new RoomSwitches(deps.kv, deps.clock),
    paths: new PathRuleSets(deps.kv, deps.clock),
    storeFailure: new StoreFailure(deps.kv, deps.clock, {
      policy: deps.config.STORE_FAILURE,
      maxOpenMs: deps.config.STORE_FAILURE_OPEN_SECONDS * 1000,
    }),
    crawlers: createCrawlers(deps),
  };

  services.isAdminSession = sessionChecker(services);
  services.rooms.sampler = safetyNetSampler(
    engine,
    deps.kv,
    deps.config.ACCESS_TOKEN_TTL_SECONDS,
    () => services.access.hits.idle(),
  );
  // The line as this instance last read it (at most a second old; the join path reads it first).
  services.rooms.lineWaiting = (q) => engine.ctx.freshView(q)?.counts.waiting ?? 0;
  services.rooms.lineClosed = (q) => {
    const v = engine.ctx.freshView(q);
    return v !== undefined && !engine.ctx.isOpen(v.settings, engine.ctx.now());
  };
  // `queue_all`: everyone waits, even with capacity free (the join asks before going in at once).
  engine.ctx.queueAll = async (q) => (await services.rooms.effectiveMode(q)) === "queue_all";
  await services.mail.refresh();
  services.mailJob = mailJob({ ...deps, engine, mail: services.mail });
  engine.guardCounts = (q) => services.guards.stats.lastHour(q);

  return services;
}

/** The Hono app: the origin gate, security headers, body limit, every route, the contract. */
function honoApp(services: Services, origin: OriginGate): OpenAPIHono {
  const app = new OpenAPIHono({ defaultHook: validationHook });
  app.onError(onError);
  // A browser asking for a page that is not here (`/` with no site behind, a `?return=` path)
  // gets the front page; API clients get the envelope.
  app.notFound((c) =>
    wantsPage(c)
      ? frontPage(c, services)
      : c.json(errorBody("not_found", `no route for ${c.req.method} ${c.req.path}`), 404)
  );
  const adminCspValue = adminCsp(services.config.TURNSTILE_SCRIPT_URL);
  // First: proxied traffic gets neither our headers nor the body limit (app.request() path).
  // Requests the served `fetch` already put through the gate skip it here (no second look-up).
  const gateMiddleware = originMiddleware(origin);
  app.use("*", (c, next) => wasGated(c.req.raw) ? next() : gateMiddleware(c, next));
  app.use("*", async (c, next) => {
    await next();
    // Set on the response's headers directly: c.header() after next() copies the response.
    const h = c.res.headers;
    // A route may tailor a header (the embeddable waiting page allows framing); others get ours.
    const csp = h.get("Content-Security-Policy") ?? "";
    for (const [k, v] of SECURITY_HEADERS) {
      // A page framable from anywhere (the embeddable /wait) must not send X-Frame-Options.
      if (h.has(k) || (k === "X-Frame-Options" && csp.includes("frame-ancestors *"))) continue;
      h.set(k, v);
    }
    if (!h.has("Cache-Control")) h.set("Cache-Control", "no-store");
    if (ADMIN_PATH.test(c.req.path)) h.set("Content-Security-Policy", adminCspValue);
  });
  const limit = bodyLimit({ maxSize: MAX_BODY_BYTES });
  app.use(
    "*",
    (c, next) => c.req.method === "GET" || c.req.method === "HEAD" ? next() : limit(c, next),
  );
  app.use("*", emptyJsonBody);
  // After the body middlewares (they hand routes a new Request): cookies' Secure (http/cookies.ts).
  app.use("*", (c, next) => {
    notePublicUrl(c.req.raw, services.config.PUBLIC_URL);
    return next();
  });
  app.route("/", systemRoutes(services));
  app.route("/", visitorRoutes(services));
  app.route("/", resumeRoutes(services));
  app.route("/", forwardAuthRoutes(services));
  app.route("/", releaseRoutes(services));
  app.route("/", operatorRoutes(services));
  app.route("/", adminRoutes(services));
  app.route("/", pageRoutes(services));
  app.route("/", costRoutes(services));
  app.route("/", drawRoutes(services, assetsOnce()));
  app.openAPIRegistry.registerComponent("securitySchemes", "operatorBearer", {
    type: "http",
    scheme: "bearer",
    description: "TOKEN_SECRET",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "adminSession", {
    type: "apiKey",
    in: "cookie",
    name: "tg_admin",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "accessToken", {
    type: "http",
    scheme: "bearer",
    description: "a visitor's access token",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "operatorHeader", {
    type: "apiKey",
    in: "header",
    name: "X-Service-Operator",
  });
  app.get("/openapi.json", (c) => c.json(openApiDocument(app)));
  return app;
}

/** The OpenAPI 3.1 document generated from the route schemas. */
export function openApiDocument(app: OpenAPIHono) {
  return app.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "Tollgate",
      version: VERSION,
      description: "Virtual waiting room: visitor, operator and system API. A request body " +
        "not received in full within BODY_TIMEOUT_MS (default 5 s) is answered 408 " +
        "`request_timeout` on every route of the service; a body over " +
        `${MAX_BODY_BYTES / 1024} KiB, 413 \`payload_too_large\`; a JSON body sent without ` +
        "`Content-Type: application/json`, 400 `bad_request`. An empty body sent as JSON reads " +
        "as `{}`: an optional body is then absent, a required one names its missing fields.",
    },
  });
}
