/**
 * The built client assets in static/build/ (see scripts/build.ts): their hashed names from the
 * manifest, and a route serving them with the right content type. Hashed files never change, so
 * they are cached for a year; anything else under /static/ gets five minutes.
 */
import { Hono } from "hono";
import { log } from "../../lib/log.ts";

const STATIC_DIR = new URL("../../static/", import.meta.url);
const TYPES: Record<string, string> = {
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  json: "application/json; charset=utf-8",
  svg: "image/svg+xml",
  png: "image/png",
  ico: "image/x-icon",
  webp: "image/webp",
  woff2: "font/woff2",
};
/** `name-<12 hex>.ext`: written by the build, content-addressed. */
const HASHED = /-[0-9a-f]{12}\.[a-z0-9]+$/;
/** One optional folder level, plain names only: no `..`, no hidden files. */
const SAFE_PATH = /^(?:[A-Za-z0-9_-]+\/)?[A-Za-z0-9_-][A-Za-z0-9._-]*\.[a-z0-9]+$/;

/** Entry name -> public URL of its built file (e.g. `wait.js` -> `/static/build/wait-….js`). */
export type Assets = Record<string, string>;

/**
 * Reads `build/manifest.json` under `dir`; an empty map (pages without scripts) and one warning
 * when it is not built.
 */
export async function loadAssets(dir: URL = STATIC_DIR): Promise<Assets> {
  try {
    const manifest: Record<string, string> = JSON.parse(
      await Deno.readTextFile(new URL("build/manifest.json", dir)),
    );
    const out: Assets = {};
    for (const [k, v] of Object.entries(manifest)) out[k] = `/static/build/${v}`;
    return out;
  } catch {
    log("warn", "static/build/manifest.json missing: run `deno task build`; pages work without JS");
    return {};
  }
}

/**
 * The manifest read once, on first use (nothing runs at import), and kept: a missing build means
 * one warning, not a file read and a log line on every page view. A build made while the service
 * runs is picked up at the next start.
 */
export function assetsOnce(load: () => Promise<Assets> = loadAssets): () => Promise<Assets> {
  let got: Promise<Assets> | undefined;
  return () => (got ??= load());
}

/** `GET /static/*`: files under static/ with their content type and cache lifetime. */
export function staticRoutes() {
  const app = new Hono();
  const cache = new Map<string, Uint8Array<ArrayBuffer>>();
  app.get("/static/*", async (c) => {
    const rel = c.req.path.slice("/static/".length);
    const type = TYPES[rel.slice(rel.lastIndexOf(".") + 1)];
    if (!SAFE_PATH.test(rel) || !type) return c.notFound();
    let body = cache.get(rel);
    if (!body) {
      try {
        body = await Deno.readFile(new URL(rel, STATIC_DIR));
      } catch {
        return c.notFound();
      }
      // Only content-addressed files are kept in memory: they can never change.
      if (HASHED.test(rel)) cache.set(rel, body);
    }
    return c.body(body, 200, {
      "Content-Type": type,
      "Cache-Control": HASHED.test(rel)
        ? "public, max-age=31536000, immutable"
        : "public, max-age=300",
    });
  });
  return app;
}
