/**
 * Browser-test helpers: a REAL server (createApp over in-memory KV, the system clock, Deno.serve
 * on port 0, admission ticks on) and Debian's Chromium driven by playwright-core.
 */
import { type Browser, chromium } from "playwright-core";
import { type Config, testConfig } from "../../lib/config.ts";
import { serveApp } from "../live_app.ts";
import type { Branding } from "../../lib/branding.ts";
import { writeBranding } from "../helpers.ts";

export { serveApp };

/** Where Debian installs Chromium (`.ci/run` installs it when missing). */
export const CHROMIUM = "/usr/bin/chromium";

/**
 * Launches headless Chromium with a fresh temporary profile and nothing phoning home; `extraArgs`
 * add switches (e.g. a host-resolver rule).
 */
export function launchBrowser(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      ...extraArgs,
    ],
  });
}

/** A running service for one browser test file. */
export interface TestServer {
  base: string;
  config: Config;
  /** Replaces the branding record (service-wide) and drops the cache. */
  setBranding(b: Partial<Branding>): Promise<void>;
  /** Operator force-admit through the real API (bearer TOKEN_SECRET). */
  admit(queue: string, count?: number): Promise<number>;
  close(): Promise<void>;
}

/**
 * Starts the service on 127.0.0.1. Each queue in `queues` gets a tiny admission rate (one per
 * 100 s) after one visitor took the instant slot, so browser visitors wait until `/admit`.
 */
export async function startServer(
  queues: string[],
  overrides: Partial<Config> = {},
): Promise<TestServer> {
  const { base, kv, services, close } = await serveApp(
    testConfig({ QUEUES: queues, ...overrides }),
  );
  const config = services.config;
  for (const q of queues) {
    await services.engine.setRate(q, 0.01);
    await services.engine.join(q, null);
  }
  return {
    base,
    config,
    setBranding: (b) => writeBranding(kv, services.engine, b),
    async admit(queue, count = 1) {
      const res = await fetch(`${base}/admit`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${config.TOKEN_SECRET}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({ queue, count }),
      });
      return (await res.json()).admitted;
    },
    close,
  };
}

/**
 * A tiny page on another origin (another port) that embeds `src` in an iframe. Its `base` names
 * `host`: `localhost` makes it another SITE than the service on 127.0.0.1 (cookies then differ).
 */
export function startHostPage(
  src: string,
  host = "127.0.0.1",
): { base: string; close: () => Promise<void> } {
  const html = `<!doctype html><title>Shop</title><h1>Our shop</h1>
<iframe src="${src}" title="Waiting room" width="420" height="360" style="border:1px solid #ccc"></iframe>`;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } }),
  );
  return { base: `http://${host}:${server.addr.port}`, close: () => server.shutdown() };
}

/** Path of a screenshot the test run writes for reviewers. */
export function screenshotPath(name: string): string {
  return new URL(`../screenshots/${name}`, import.meta.url).pathname;
}
