/**
 * What each folder may import: lib/ (the domain and its adapters) never Hono, app.ts, routes/ or
 * http/; http/ (the one HTTP layer) never routes/ or app.ts; tests/ and bench/ never each other
 * (both may use testing/).
 */
import { assertEquals } from "./assert.ts";

const ROOT = new URL("..", import.meta.url).pathname;

/** Every .ts/.tsx file under `dir` (relative to the repo), recursively. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of Deno.readDirSync(ROOT + dir)) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) out.push(...filesUnder(path));
    else if (/\.tsx?$/.test(e.name)) out.push(path);
  }
  return out;
}

/** The import specifiers of a file, resolved to repo paths where relative. */
function importsOf(file: string): string[] {
  const text = Deno.readTextFileSync(ROOT + file);
  const specs = [...text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+"([^"]+)"/gm)].map((m) =>
    m[1]
  );
  return specs.map((s) => s.startsWith(".") ? new URL(s, `file:///${file}`).pathname.slice(1) : s);
}

function violations(dir: string, forbidden: RegExp): string[] {
  return filesUnder(dir).flatMap((f) =>
    importsOf(f).filter((i) => forbidden.test(i)).map((i) => `${f} imports ${i}`)
  );
}

Deno.test("layers: lib never imports Hono, app.ts, routes/ or http/", () => {
  // `@hono/zod-openapi` is zod with contract metadata (no HTTP): the branding schema, shared by
  // the domain and its route, is built with it so its `.openapi()` works in any load order.
  assertEquals(violations("lib", /^(hono(\/|$)|app\.ts$|routes\/|http\/)/), []);
});

Deno.test("layers: http/ never imports routes/ or app.ts", () => {
  assertEquals(violations("http", /^(app\.ts$|routes\/)/), []);
});

Deno.test("layers: tests and bench never import each other", () => {
  assertEquals(violations("bench", /^tests\//), []);
  assertEquals(violations("tests", /^bench\//), []);
});

Deno.test("layers: the checker sees a forbidden import (it can fail)", () => {
  assertEquals(importsOf("routes/status_fast.ts").includes("http/response.ts"), true);
  assertEquals(violations("routes", /^http\/response\.ts$/).length > 0, true);
});
