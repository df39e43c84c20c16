/**
 * The documentation holds together: every relative link in README.md and docs/*.md reaches a file
 * (and, with a `#fragment`, a heading of it), the README stays a short overview that links every
 * page under docs/, and its configuration table names every variable the config schema reads.
 * "Documented in the README" means the README or a page it links, so these are what keep it true.
 */
import { CONFIG_KEYS } from "../lib/config.ts";
import { assert, assertEquals } from "./assert.ts";

const ROOT = new URL("../", import.meta.url);

/** The README is read in ten minutes; past this it is turning back into a manual. */
const README_MAX_LINES = 450;

/**
 * Pages the README lists under "More documentation" that are written on other branches. A link to
 * one of them may dangle until that branch is merged; once a page exists it is checked like any
 * other. Remove a name here when its page lands.
 */
const PAGES_WRITTEN_ELSEWHERE = [
  "docs/fair-opening.md",
];

/** Markdown with fenced code blocks blanked out (links and headings there are examples). */
function withoutFences(md: string): string {
  let fenced = false;
  return md.split("\n").map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return "";
    }
    return fenced ? "" : line;
  }).join("\n");
}

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .trim()
    .replace(/\s/g, "-");
}

/** Every anchor of a page's headings, numbered as GitHub numbers repeats (`x`, `x-1`, ...). */
export function anchors(md: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of withoutFences(md).matchAll(/^#{1,6}\s+(.*?)\s*#*\s*$/gm)) {
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Relative link targets of a page: inline `](target)` and reference `[x]: target` links. */
export function relativeLinks(md: string): string[] {
  const text = withoutFences(md).replace(/`[^`\n]*`/g, "");
  const inline = [...text.matchAll(/\]\(<?([^)\s>]+)>?(?:\s+"[^"]*")?\)/g)].map((m) => m[1]);
  const refs = [...text.matchAll(/^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s|$)/gm)].map((m) => m[1]);
  return [...inline, ...refs].filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

/** Root-relative path of `target` as linked from the page at root-relative `from`. */
function resolve(from: string, target: string): string {
  const path = target.split("#")[0];
  if (!path) return from;
  const url = new URL(decodeURI(path), new URL(from, ROOT));
  return url.pathname.slice(ROOT.pathname.length);
}

/** What is wrong with the links of one page: each broken link, in words. */
export async function brokenLinks(
  from: string,
  md: string,
  read: (path: string) => Promise<string | null>,
  mayBeMissing: string[] = [],
): Promise<string[]> {
  const problems: string[] = [];
  for (const target of relativeLinks(md)) {
    const path = resolve(from, target);
    const fragment = target.includes("#") ? target.slice(target.indexOf("#") + 1) : "";
    const text = path === from ? md : await read(path);
    if (text === null) {
      if (!mayBeMissing.includes(path)) problems.push(`${from} links to ${target}: no ${path}`);
      continue;
    }
    if (fragment && path.endsWith(".md") && !anchors(text).has(decodeURIComponent(fragment))) {
      problems.push(`${from} links to ${target}: ${path} has no heading #${fragment}`);
    }
  }
  return problems;
}

/** A file's text, "" for a directory, null when nothing is there. */
async function readRoot(path: string): Promise<string | null> {
  const url = new URL(path, ROOT);
  try {
    const info = await Deno.stat(url);
    return info.isDirectory ? "" : await Deno.readTextFile(url);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  }
}

/** README.md and every Markdown page under docs/ (examples included), root-relative. */
async function pages(): Promise<string[]> {
  const out = ["README.md"];
  async function walk(dir: string) {
    for await (const e of Deno.readDir(new URL(dir, ROOT))) {
      if (e.isDirectory) await walk(`${dir}${e.name}/`);
      else if (e.name.endsWith(".md")) out.push(`${dir}${e.name}`);
    }
  }
  await walk("docs/");
  return out.sort();
}

Deno.test("the link checker finds a missing file, a missing heading and a bad same-page anchor", async () => {
  const files: Record<string, string> = { "docs/a.md": "# A\n\n## Two words (`x`)\n" };
  const read = (p: string) => Promise.resolve(files[p] ?? null);
  const md = [
    "# Page",
    "[ok](a.md) [ok](a.md#two-words-x) [ok](#page) [web](https://example.com/x.md)",
    "[gone](b.md) [no heading](a.md#three) [no anchor here](#nowhere) `[code](c.md)`",
    "```",
    "[fenced](d.md)",
    "```",
    "[ref]: e.md",
  ].join("\n");
  assertEquals(await brokenLinks("docs/page.md", md, read), [
    "docs/page.md links to b.md: no docs/b.md",
    "docs/page.md links to a.md#three: docs/a.md has no heading #three",
    "docs/page.md links to #nowhere: docs/page.md has no heading #nowhere",
    "docs/page.md links to e.md: no docs/e.md",
  ]);
  assertEquals(await brokenLinks("docs/page.md", "[later](b.md)", read, ["docs/b.md"]), []);
});

Deno.test("headings get GitHub's anchors, repeats numbered", () => {
  const md = "# Load scenarios (`deno task load`)\n## The client's address\n## Notes\n## Notes\n";
  assertEquals([...anchors(md)], [
    "load-scenarios-deno-task-load",
    "the-clients-address",
    "notes",
    "notes-1",
  ]);
});

Deno.test("every relative link in README.md and docs/ resolves, anchors included", async () => {
  const all = await pages();
  assert(all.includes("docs/deploy.md"), "the pages were found");
  const problems: string[] = [];
  for (const page of all) {
    const md = (await readRoot(page))!;
    problems.push(...await brokenLinks(page, md, readRoot, PAGES_WRITTEN_ELSEWHERE));
  }
  assertEquals(problems, []);
});

Deno.test("the README is a short overview that links every page under docs/", async () => {
  const readme = (await readRoot("README.md"))!;
  const lines = readme.split("\n").length;
  assert(lines <= README_MAX_LINES, `README.md has ${lines} lines (at most ${README_MAX_LINES})`);
  const linked = new Set(relativeLinks(readme).map((t) => resolve("README.md", t)));
  const unlinked = (await pages()).filter((p) => p.startsWith("docs/") && !linked.has(p));
  assertEquals(unlinked, [], "pages under docs/ that the README does not link");
  for (const p of PAGES_WRITTEN_ELSEWHERE) assert(linked.has(p), `the README links ${p}`);
});

Deno.test("the README's configuration table names every variable the service reads", async () => {
  const readme = (await readRoot("README.md"))!;
  const from = readme.indexOf("\n## Configuration\n");
  assert(from >= 0, "README.md has a Configuration section");
  const section = readme.slice(from, readme.indexOf("\n## ", from + 1));
  const rows = section.split("\n").filter((l) => l.startsWith("|")).join("\n");
  const missing = CONFIG_KEYS.filter((k) => !rows.includes(`\`${k}\``));
  assertEquals(missing, [], "variables missing from the README's configuration table");
});
