/**
 * docs/observability.md's series table names every metric family the service can write, and only
 * those: a scrape of a fresh service (the families named at run time) plus every family name
 * written out in lib/ (the ones a fresh service has no series of yet, like a lane's). The priority
 * lanes' `tollgate_queue_lane_*` families were served but missing from the table (found by a
 * black-box sweep comparing a scrape with the docs).
 */
import { assertEquals } from "./assert.ts";
import { makeApp, operator } from "./helpers.ts";

const root = new URL("../", import.meta.url);

/** The names a table cell's backticked tokens stand for; `_x` is short for a sibling of the row's first name. */
function expand(cell: string): Set<string> {
  const out = new Set<string>();
  const tokens = [...cell.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]);
  const full = tokens.find((t) => t.startsWith("tollgate_"));
  for (const t of tokens) {
    if (t.startsWith("tollgate_")) out.add(t);
    else if (t.startsWith("_") && full) {
      const segs = full.split("_");
      for (let k = 2; k < segs.length; k++) {
        const head = segs.slice(0, k).join("_");
        // `_average_` replaces one word (`…_estimated_wait_seconds` → `…_average_wait_seconds`).
        out.add(t.endsWith("_") ? head + t + segs.slice(k + 1).join("_") : head + t);
      }
    }
  }
  return out;
}

/** What the table documents: every name and every expansion of a short form. */
async function documented(): Promise<{ names: Set<string>; literal: string[] }> {
  const text = await Deno.readTextFile(new URL("docs/observability.md", root));
  const names = new Set<string>();
  const literal: string[] = [];
  for (const line of text.split("\n")) {
    if (!line.startsWith("| `tollgate_")) continue;
    const cell = line.split("|")[1];
    for (const n of expand(cell)) names.add(n);
    literal.push(...[...cell.matchAll(/`(tollgate_[a-z_]+)`/g)].map((m) => m[1]));
  }
  return { names, literal };
}

/** Every `"tollgate_…"` family name written out in lib/ (walks the folder). */
async function inSource(dir = new URL("lib/", root)): Promise<Set<string>> {
  const out = new Set<string>();
  for await (const e of Deno.readDir(dir)) {
    const url = new URL(e.name + (e.isDirectory ? "/" : ""), dir);
    if (e.isDirectory) { for (const n of await inSource(url)) out.add(n); }
    else if (e.name.endsWith(".ts")) {
      const text = await Deno.readTextFile(url);
      for (const m of text.matchAll(/"(tollgate_[a-z_]+)"/g)) out.add(m[1]);
    }
  }
  return out;
}

Deno.test("docs: the observability table names every metric family, and no other", async () => {
  const t = await makeApp();
  try {
    const res = await t.app.request("/metrics?format=prometheus", { headers: operator(t.config) });
    const served = [...(await res.text()).matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]);
    const families = new Set([...served, ...await inSource()]);
    const { names, literal } = await documented();
    assertEquals(
      [...families].filter((f) => !names.has(f)).sort(),
      [],
      "families not in the table",
    );
    assertEquals(literal.filter((n) => !families.has(n)).sort(), [], "table names no family has");
  } finally {
    t.close();
  }
});
