/**
 * Builds the client bundle: `deno bundle` (esbuild, fetched from npm once) minifies each entry in
 * client/ for the browser; the output and the stylesheet are written to static/build/ under names
 * that carry a content hash, plus manifest.json mapping entry names to those files. Pages read the
 * manifest, so built files can be cached for a year and a fresh clone needs only `deno task build`
 * (run by `start`, `test` and `e2e`).
 */
import { createHash } from "node:crypto";

/** Entry points: name in the manifest -> source file. */
const ENTRIES: Record<string, string> = {
  "wait.js": "client/wait.tsx",
  "admin.js": "client/admin/main.tsx",
  "verify_draw.js": "client/verify_draw.ts",
  // The proof-of-work solver of /wait's check, run in a Web Worker.
  "pow_worker.js": "client/pow_worker.ts",
  // The QR code drawer of /wait's "continue on another device", loaded when a code is shown.
  "qr.js": "client/qr.ts",
};
/** Files copied as they are (with a hashed name); a list is concatenated in its order. */
const COPIES: Record<string, string | (() => Promise<string[]>)> = {
  "style.css": "client/style.css",
  // The admin stylesheet: the base, then every part's own sheet under client/admin/css/.
  "admin.css": async () => [
    "client/admin/admin.css",
    ...(await Array.fromAsync(Deno.readDir(new URL("client/admin/css/", root))))
      .filter((e) => e.isFile && e.name.endsWith(".css"))
      .map((e) => `client/admin/css/${e.name}`)
      .sort(),
  ],
};

const root = new URL("../", import.meta.url);
const outDir = new URL("static/build/", root);

function hashed(name: string, bytes: Uint8Array): string {
  const h = createHash("sha256").update(bytes).digest("hex").slice(0, 12);
  const dot = name.lastIndexOf(".");
  return `${name.slice(0, dot)}-${h}${name.slice(dot)}`;
}

async function bundle(src: string): Promise<Uint8Array> {
  const tmp = await Deno.makeTempFile({ suffix: ".js" });
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["bundle", "--quiet", "--platform", "browser", "--minify", "-o", tmp, src],
      cwd: root,
      stdout: "inherit",
      stderr: "inherit",
    }).output();
    if (!out.success) throw new Error(`deno bundle ${src} failed (exit ${out.code})`);
    return await Deno.readFile(tmp);
  } finally {
    await Deno.remove(tmp).catch(() => {});
  }
}

/** Builds every entry and copy into static/build/ and rewrites the manifest. */
export async function build(): Promise<Record<string, string>> {
  const manifest: Record<string, string> = {};
  const files = new Map<string, Uint8Array>();
  for (const [name, src] of Object.entries(ENTRIES)) {
    const bytes = await bundle(src);
    manifest[name] = hashed(name, bytes);
    files.set(manifest[name], bytes);
  }
  for (const [name, src] of Object.entries(COPIES)) {
    const parts = typeof src === "string" ? [src] : await src();
    const texts = await Promise.all(parts.map((p) => Deno.readTextFile(new URL(p, root))));
    const bytes = new TextEncoder().encode(texts.join("\n"));
    manifest[name] = hashed(name, bytes);
    files.set(manifest[name], bytes);
  }
  await Deno.mkdir(outDir, { recursive: true });
  // Old hashed files go, so the directory holds exactly what the manifest names.
  for await (const e of Deno.readDir(outDir)) {
    if (e.isFile && !files.has(e.name) && e.name !== "manifest.json") {
      await Deno.remove(new URL(e.name, outDir));
    }
  }
  for (const [name, bytes] of files) await Deno.writeFile(new URL(name, outDir), bytes);
  await Deno.writeTextFile(
    new URL("manifest.json", outDir),
    JSON.stringify(manifest, null, 2) + "\n",
  );
  return manifest;
}

if (import.meta.main) {
  const manifest = await build();
  const sizes = await Promise.all(
    Object.values(manifest).map(async (f) =>
      `${f} ${(await Deno.stat(new URL(f, outDir))).size} B`
    ),
  );
  console.log(`built static/build/: ${sizes.join(", ")}`);
}
