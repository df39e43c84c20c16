/**
 * The docs and the contract name the same admin API bodies: every body field docs/*.md (and the
 * README) give for an admin route, in its table row or a curl example, exists in that route's
 * request body in openapi.yaml; and a table row that spells a body out (`{a, b?}`) names every
 * field openapi.yaml has for it. Drift either way fails here, not in an operator's terminal.
 */
import { parse } from "yaml";
import { assertEquals } from "./assert.ts";

const root = new URL("../", import.meta.url);

type Op = { method: string; path: string };
// deno-lint-ignore no-explicit-any
type Json = any;

/** Each admin route's body field names (top level), by "METHOD /path" with {params} as given. */
async function contract(): Promise<Map<string, Set<string>>> {
  const doc: Json = parse(await Deno.readTextFile(new URL("openapi.yaml", root)));
  const props = (s: Json): string[] => {
    if (!s) return [];
    if (s.$ref) s = doc.components.schemas[s.$ref.split("/").pop()];
    return [
      ...Object.keys(s.properties ?? {}),
      ...(s.allOf ?? []).flatMap(props),
      ...(s.anyOf ?? []).flatMap(props),
      ...(s.oneOf ?? []).flatMap(props),
    ];
  };
  const out = new Map<string, Set<string>>();
  for (const [path, ops] of Object.entries<Json>(doc.paths)) {
    if (!path.startsWith("/api/admin/")) continue;
    for (const [method, op] of Object.entries<Json>(ops)) {
      const schema = op.requestBody?.content?.["application/json"]?.schema;
      out.set(`${method.toUpperCase()} ${path}`, new Set(props(schema)));
    }
  }
  return out;
}

/** The contract's key for a documented route: `:id` and `{id}` alike, the query dropped. */
function keyOf(op: Op, known: Map<string, Set<string>>): string | undefined {
  const path = op.path.split("?")[0].replace(/\/$/, "");
  const want = path.replace(/:[a-zA-Z]+|\{[a-zA-Z]+\}|<[^>]+>/g, "{}");
  for (const k of known.keys()) {
    const [m, p] = k.split(" ");
    if (m === op.method && p.replace(/\{[a-zA-Z]+\}/g, "{}") === want) return k;
  }
  return undefined;
}

/** The field names of a documented body: `{queue?, mode: "queue"|"lottery"}` -> queue, mode. */
function bodyFields(spec: string): string[] {
  const inner = spec.trim().replace(/^\{/, "").replace(/\}$/, "");
  const out: string[] = [];
  // Only the top level: skip anything inside nested braces or brackets.
  let depth = 0, token = "";
  for (const ch of inner + ",") {
    if ("{[(".includes(ch)) depth++;
    if ("}])".includes(ch)) depth--;
    if (ch === "," && depth === 0) {
      const m = /^\s*"?([A-Za-z][A-Za-z0-9]*)"?\s*\??\s*(:|$)/.exec(token);
      if (m) out.push(m[1]);
      token = "";
    } else token += ch;
  }
  return out;
}

interface Named {
  where: string;
  key: string;
  fields: string[];
  /** A table row spelling the whole body out: it must name every field. */
  whole: boolean;
}

/** What the docs say each admin route takes. */
async function documented(known: Map<string, Set<string>>): Promise<Named[]> {
  const files = ["README.md"];
  for await (const e of Deno.readDir(new URL("docs/", root))) {
    if (e.isFile && e.name.endsWith(".md")) files.push(`docs/${e.name}`);
  }
  const out: Named[] = [];
  for (const file of files.sort()) {
    const lines = (await Deno.readTextFile(new URL(file, root))).split("\n");
    lines.forEach((line, i) => {
      const where = `${file}:${i + 1}`;
      // A table row: | `METHOD /api/admin/...` | `{fields}` | ...
      const row = /^\|\s*`(GET|POST|PUT|DELETE|PATCH) (\/api\/admin\/[^`\s]*)`\s*\|([^|]*)\|/
        .exec(line);
      const bodies = row ? [...row[3].matchAll(/`(\{[^`]*\})`/g)].map((m) => m[1]) : [];
      if (row && bodies.length) {
        const key = keyOf({ method: row[1], path: row[2] }, known);
        out.push({
          where,
          key: key ?? `${row[1]} ${row[2]}`,
          fields: bodies.flatMap(bodyFields),
          // `{a, b?}` spells the body out; `{"a": 1}` is one example of it.
          whole: !bodies.some((b) => /^\{\s*"/.test(b)),
        });
        return;
      }
      // Inline: `METHOD /api/admin/x {"a":…}` or `METHOD /api/admin/x` with body `{a, b}`.
      for (
        const m of line.matchAll(/`(POST|PUT|DELETE|PATCH) (\/api\/admin\/[^`\s]*) (\{[^`]*\})`/g)
      ) {
        const key = keyOf({ method: m[1], path: m[2] }, known);
        out.push({ where, key: key ?? `${m[1]} ${m[2]}`, fields: bodyFields(m[3]), whole: false });
      }
      // A curl example: -X METHOD …/api/admin/x … -d '{json}' (on the same line).
      const curl = /-X (POST|PUT|DELETE|PATCH) \S*?(\/api\/admin\/[^\s'"]*).*?-d '(\{[^']*\})'/
        .exec(line);
      if (curl) {
        const key = keyOf({ method: curl[1], path: curl[2] }, known);
        let fields: string[] = [];
        try {
          fields = Object.keys(JSON.parse(curl[3]));
        } catch {
          /* a shell-quoted body: its keys by name */
          fields = bodyFields(curl[3]);
        }
        out.push({ where, key: key ?? `${curl[1]} ${curl[2]}`, fields, whole: false });
      }
    });
  }
  return out;
}

Deno.test("docs and openapi.yaml name the same admin API body fields, both ways", async () => {
  const known = await contract();
  const docs = await documented(known);
  const problems: string[] = [];
  for (const d of docs) {
    const have = known.get(d.key);
    if (!have) {
      problems.push(`${d.where}: ${d.key} is not in openapi.yaml`);
      continue;
    }
    for (const f of d.fields) {
      if (!have.has(f)) problems.push(`${d.where}: ${d.key} has no body field "${f}"`);
    }
    if (d.whole) {
      for (const f of have) {
        if (!d.fields.includes(f)) problems.push(`${d.where}: ${d.key} leaves out "${f}"`);
      }
    }
  }
  assertEquals(problems, []);
  // The walk found the tables (a parser that matched nothing would prove nothing).
  const rows = docs.filter((d) => d.whole).length;
  if (rows < 15) throw new Error(`only ${rows} documented admin bodies found`);
});
