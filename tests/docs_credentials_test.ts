/**
 * A curl example in the docs that sends the `TOKEN_SECRET` as a bearer must call a route that takes
 * it: most of the admin API wants an admin session and answers the bearer 401, so an example
 * copied into a terminal would fail (docs/sessions.md did, for `PUT /api/admin/sessions`).
 */
import { parse } from "yaml";
import { assertEquals } from "./assert.ts";

const root = new URL("../", import.meta.url);
// deno-lint-ignore no-explicit-any
type Json = any;

/** "METHOD /path" -> the security schemes openapi.yaml gives it. */
async function securityOf(): Promise<Map<string, string[]>> {
  const doc: Json = parse(await Deno.readTextFile(new URL("openapi.yaml", root)));
  const out = new Map<string, string[]>();
  for (const [path, ops] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(ops)) {
      const schemes = (op.security ?? []).flatMap((s: Json) => Object.keys(s));
      out.set(`${method.toUpperCase()} ${path}`, schemes);
    }
  }
  return out;
}

/** A bearer header that carries the service secret, however the docs spell it. */
const SECRET_BEARER = /Bearer (\$TOKEN_SECRET|\$\(cat data\/token-secret\)|<TOKEN_SECRET>)/i;

/** Every curl command of the docs' shell blocks, continuation lines joined, with where it is. */
async function curlCommands(): Promise<{ where: string; cmd: string; vars: string }[]> {
  const files = ["README.md"];
  for await (const e of Deno.readDir(new URL("docs/", root))) {
    if (e.isFile && e.name.endsWith(".md")) files.push(`docs/${e.name}`);
  }
  const out: { where: string; cmd: string; vars: string }[] = [];
  for (const file of files.sort()) {
    const lines = (await Deno.readTextFile(new URL(file, root))).split("\n");
    let inShell = false, vars = "";
    for (let i = 0; i < lines.length; i++) {
      if (/^```(sh|bash|shell)\s*$/.test(lines[i])) [inShell, vars] = [true, ""];
      else if (lines[i].startsWith("```")) inShell = false;
      if (!inShell) continue;
      // Shell variables set in the block (S="authorization: Bearer …") stand in for their text.
      if (/^[A-Z]+=/.test(lines[i])) vars += lines[i] + "\n";
      if (!/\bcurl\b/.test(lines[i])) continue;
      let cmd = lines[i];
      const start = i;
      while (cmd.trimEnd().endsWith("\\") && i + 1 < lines.length) cmd += "\n" + lines[++i];
      out.push({ where: `${file}:${start + 1}`, cmd, vars });
    }
  }
  return out;
}

/** The method and path a curl command calls (`-X`, else POST with `-d`, else GET). */
function target(cmd: string): { method: string; path: string } | null {
  const url =
    /(?:https?:\/\/)?(?:localhost|127\.0\.0\.1|queue\.example\.com|\$BASE)(?::\d+)?(\/[^\s'"?]*)/
      .exec(cmd);
  if (!url) return null;
  const x = /-X\s+([A-Z]+)/.exec(cmd);
  const method = x ? x[1] : /\s-d\s/.test(cmd) ? "POST" : "GET";
  return { method, path: url[1] };
}

Deno.test("every docs example that sends TOKEN_SECRET as a bearer calls a route that takes it", async () => {
  const security = await securityOf();
  const problems: string[] = [];
  let checked = 0;
  for (const { where, cmd, vars } of await curlCommands()) {
    // `-H "$S"` with S set to the bearer header in the same block counts as the bearer.
    const used = [...cmd.matchAll(/\$([A-Z]+)\b/g)].map((m) => m[1]);
    const viaVar = used.some((v) => new RegExp(`^${v}=.*${SECRET_BEARER.source}`, "im").test(vars));
    if (!SECRET_BEARER.test(cmd) && !viaVar) continue;
    const t = target(cmd);
    if (!t) continue;
    const schemes = security.get(`${t.method} ${t.path}`);
    if (!schemes) continue; // not one of ours (BASE_PATH prefixes, the origin's paths)
    checked++;
    if (!schemes.includes("operatorBearer")) {
      problems.push(`${where}: ${t.method} ${t.path} does not take the TOKEN_SECRET bearer`);
    }
  }
  assertEquals(problems, []);
  // The walk found the examples (a parser that matched nothing would prove nothing).
  if (checked < 5) throw new Error(`only ${checked} bearer examples found`);
});
