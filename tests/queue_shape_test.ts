/**
 * The engine stays one a newcomer can hold in their head (issue 31): no function in lib/queue
 * longer than 80 lines, and no import cycle among its files (type-only imports included). Run
 * `deno test -A tests/queue_shape_test.ts` to see the longest functions.
 */
import ts from "typescript";
import { assert } from "./assert.ts";

const DIR = new URL("../lib/queue/", import.meta.url);
const MAX_LINES = 80;

async function files(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const e of Deno.readDir(DIR)) {
    if (e.isFile && e.name.endsWith(".ts")) {
      out.set(e.name, await Deno.readTextFile(new URL(e.name, DIR)));
    }
  }
  return out;
}

/** Every function, method and arrow function of a file, with its length in lines. */
function functionsOf(name: string, text: string): { where: string; lines: number }[] {
  const src = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
  const out: { where: string; lines: number }[] = [];
  const lineOf = (pos: number) => src.getLineAndCharacterOfPosition(pos).line;
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const start = lineOf(node.getStart(src));
      const lines = lineOf(node.getEnd()) - start + 1;
      const id = (node as { name?: ts.Node }).name?.getText(src) ?? "(anonymous)";
      out.push({ where: `${name}:${start + 1} ${id}`, lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(src);
  return out;
}

Deno.test("no function in lib/queue is longer than 80 lines", async () => {
  const all = [...(await files())].flatMap(([n, t]) => functionsOf(n, t));
  all.sort((a, b) => b.lines - a.lines);
  console.log("longest lib/queue functions:");
  for (const f of all.slice(0, 10)) console.log(`  ${String(f.lines).padStart(4)}  ${f.where}`);
  const over = all.filter((f) => f.lines > MAX_LINES);
  assert(over.length === 0, `over ${MAX_LINES} lines: ${over.map((f) => f.where).join(", ")}`);
  assert(all.length > 50, `found only ${all.length} functions: the scan is broken`);
});

Deno.test("no import cycle among lib/queue files (type-only imports included)", async () => {
  const all = await files();
  const edges = new Map<string, string[]>();
  for (const [n, t] of all) {
    const deps = [...t.matchAll(/from "\.\/([\w.]+\.ts)"/g)].map((m) => m[1]);
    edges.set(n, deps.filter((d) => all.has(d)));
  }
  const cycles: string[] = [];
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (n: string) => {
    state.set(n, "open");
    path.push(n);
    for (const d of edges.get(n) ?? []) {
      if (state.get(d) === "open") cycles.push([...path.slice(path.indexOf(d)), d].join(" -> "));
      else if (!state.has(d)) visit(d);
    }
    path.pop();
    state.set(n, "done");
  };
  for (const n of edges.keys()) if (!state.has(n)) visit(n);
  assert(cycles.length === 0, `import cycles:\n${cycles.join("\n")}`);
  assert(edges.size > 20, "the scan found the files");
});
