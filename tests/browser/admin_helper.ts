/**
 * Browser tests of the admin app: a REAL server (createApp over in-memory KV, system clock,
 * Deno.serve on 127.0.0.1) whose Cloudflare API and Turnstile point at fakes on loopback (one
 * fake server), plus API-side shortcuts (claim, whole setup) and a signed-in browser context.
 */
import type { Browser, BrowserContext } from "playwright-core";
import type { Services } from "../../routes/services.ts";
import { TOS_VERSION } from "../../lib/admin/tos.ts";
import { type Config, testConfig } from "../../lib/config.ts";
// Also lowers the PBKDF2 cost for tests: they need the flow, not the 600k iterations.
import { TEST_PASSWORD } from "../admin_helpers.ts";
import { TOKEN } from "../edge_helpers.ts";
import { type FakeCloudflare, fakeCloudflare } from "../fakes/cloudflare.ts";
import { type FakeServer, serveFakes } from "../fakes/serve.ts";
import { type FakeTurnstile, fakeTurnstile } from "../fakes/turnstile.ts";
import { fakeTurnstileWidget } from "../fakes/turnstile_widget.ts";
import { EDGE_HOST } from "../fakes/turnstile_setup.ts";
import { serveApp } from "./helper.ts";

/** The operator's Cloudflare API token in these tests (valid for zones and Turnstile). */
export const CF_TOKEN = TOKEN;
export const ZONE = "example.com";
export { EDGE_HOST };
export const ADMIN_USER = "admin";
export const ADMIN_PASSWORD = TEST_PASSWORD;

/** A parsed JSON answer (tests read fields freely). */
// deno-lint-ignore no-explicit-any
type Json = any;

/** A running service with its fakes. */
export interface AdminServer {
  base: string;
  config: Config;
  kv: Deno.Kv;
  services: Services;
  cf: FakeCloudflare;
  turnstile: FakeTurnstile;
  fakes: FakeServer;
  /** Calls the API as a browser would (Origin set on writes), with `cookie` when given. */
  call(
    method: string,
    path: string,
    body?: unknown,
    cookie?: string,
    headers?: Record<string, string>,
  ): Promise<{ status: number; json: Json; cookie?: string }>;
  /** Claims the service through the API; returns the session cookie value and the phrase. */
  claim(username?: string, password?: string): Promise<{ session: string; phrase: string }>;
  /** Runs every setup step through the API (edge, challenge with a solved widget, finish). */
  completeSetup(session: string): Promise<{ siteKey: string }>;
  /** A browser context carrying `session` as its tg_admin cookie. */
  signedIn(
    browser: Browser,
    session: string,
    viewport?: { width: number; height: number },
  ): Promise<BrowserContext>;
  close(): Promise<void>;
}

/** Starts the fakes and the service. `overrides` win over the provider URLs. */
export async function startAdminServer(
  queues: string[] = ["default"],
  overrides: Partial<Config> = {},
): Promise<AdminServer> {
  const cf = fakeCloudflare({ timeoutDelayMs: 3000 });
  const zone = cf.addZone(ZONE);
  cf.addToken(CF_TOKEN);
  cf.addRecord(ZONE, { type: "A", name: EDGE_HOST, content: "203.0.113.7", proxied: false });
  const turnstile = fakeTurnstile({
    tokens: { [CF_TOKEN]: { accounts: [zone.accountId], turnstile: true } },
    accounts: [zone.accountId],
  });
  // Turnstile's widget paths first: the Cloudflare fake answers everything under /client/v4/.
  // The browser side (api.js, the widget frame) before all: a fake widget a test can click.
  const fakes = serveFakes(fakeTurnstileWidget(turnstile), turnstile.handler, cf.handler);
  const config = testConfig({
    QUEUES: queues,
    CLOUDFLARE_API_BASE: `${fakes.url}/client/v4`,
    TURNSTILE_SITEVERIFY_URL: `${fakes.url}/turnstile/v0/siteverify`,
    TURNSTILE_SCRIPT_URL: `${fakes.url}/turnstile/v0/api.js`,
    PROVIDER_TIMEOUT_MS: 2000,
    ...overrides,
  });
  const { base, kv, services, close } = await serveApp(config);

  const call: AdminServer["call"] = async (method, path, body, cookie, extra = {}) => {
    const headers: Record<string, string> = { accept: "application/json", ...extra };
    if (method !== "GET" && method !== "HEAD") headers.origin = base;
    if (body !== undefined) headers["content-type"] = "application/json";
    if (cookie) headers.cookie = `tg_admin=${cookie}`;
    const res = await fetch(base + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const set = res.headers.getSetCookie().find((c) => c.startsWith("tg_admin="));
    let json = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch { /* not JSON */ }
    return { status: res.status, json, cookie: set?.split(";")[0].slice("tg_admin=".length) };
  };
  const must = async (method: string, path: string, body?: unknown, cookie?: string) => {
    const r = await call(method, path, body, cookie);
    if (r.status !== 200) {
      throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.json)}`);
    }
    return r;
  };

  return {
    base,
    config,
    kv,
    services,
    cf,
    turnstile,
    fakes,
    call,
    async claim(username = ADMIN_USER, password = ADMIN_PASSWORD) {
      const r = await call(
        "POST",
        "/api/admin/claim",
        { username, password, acceptedTosVersion: TOS_VERSION },
        undefined,
        { authorization: `Bearer ${config.TOKEN_SECRET}` },
      );
      if (r.status !== 200 || !r.cookie) {
        throw new Error(`claim: ${r.status} ${JSON.stringify(r.json)}`);
      }
      return { session: r.cookie, phrase: r.json.recoveryPhrase };
    },
    async completeSetup(session) {
      await must("POST", "/api/admin/setup/edge/token-verify", { token: CF_TOKEN }, session);
      await must(
        "POST",
        "/api/admin/setup/edge/verify",
        { zone: ZONE, hostname: EDGE_HOST },
        session,
      );
      await must("POST", "/api/admin/setup/edge/fix", {}, session);
      await must("PUT", "/api/admin/setup/edge/ssl", { mode: "strict" }, session);
      const p = await must("POST", "/api/admin/setup/challenge/provision", {}, session);
      const siteKey = p.json.siteKey as string;
      await must(
        "POST",
        "/api/admin/setup/challenge/verify",
        { response: turnstile.solve(siteKey, EDGE_HOST) },
        session,
      );
      await must("POST", "/api/admin/setup", undefined, session);
      return { siteKey };
    },
    async signedIn(browser, session, viewport = { width: 1100, height: 900 }) {
      const ctx = await browser.newContext({ viewport });
      await ctx.addCookies([{
        name: "tg_admin",
        value: session,
        url: base,
        httpOnly: true,
        sameSite: "Strict",
      }]);
      return ctx;
    },
    async close() {
      await close();
      await fakes.close();
    },
  };
}
