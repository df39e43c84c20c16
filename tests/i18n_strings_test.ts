/**
 * Every word a visitor reads comes from the message catalogues: this test reads the source of
 * the visitor pages, islands and page scripts and fails on prose written there instead (JSX text,
 * a sentence in a string, a text attribute a screen reader speaks). A line that truly needs a
 * literal (a code, an API message, a header) says so with an `i18n-ok` comment on it or just
 * above it.
 */
import { assertEquals } from "../testing/assert.ts";

/** The visitor-facing sources: pages, their components, islands and browser scripts. */
const FILES = [
  "components/Document.tsx",
  "components/ResumeForm.tsx",
  "components/LangMenu.tsx",
  "components/Notice.tsx",
  "components/WaitPage.tsx",
  "islands/JoinCheck.tsx",
  "islands/ResumeOffer.tsx",
  "islands/WaitRoom.tsx",
  "islands/wait_room_parts.tsx",
  "islands/rich.tsx",
  "client/wait.tsx",
  "client/format.ts",
  "client/timeslots.ts",
  "client/verify_draw.ts",
  "lib/notify/turn_mail.ts",
  "routes/draw_page.tsx",
  "routes/origin.ts",
  "routes/pages/how.tsx",
  "routes/pages/lang.ts",
  "routes/pages/wait.tsx",
  "routes/pages/wait_check.tsx",
  "routes/pages/wait_notice.tsx",
  "routes/pages/wait_preview.tsx",
  "routes/pages/wait_resume.tsx",
];

/** Letters (any script) in a run of two or more: a word. */
const WORD = /\p{L}{2,}/u;
/** A capitalised word followed by another word, or four words in a row: prose. */
const PROSE = /\p{Lu}\p{Ll}+[\s,’']+\p{L}|(?:\p{L}+[\s,.:;!?…]+){3}\p{L}/u;
/** Attributes whose text is read out or shown. */
const SPOKEN_ATTR = /\b(?:aria-label|title|alt|placeholder)=["']([^"']*)["']/g;

/** Source without comments (block, JSDoc and line comments), line numbers kept. */
function stripComments(src: string): string {
  return src
    .replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, " "))
    .replace(/(^|[\s;{}(),])\/\/.*$/gm, "$1");
}

/** The visitor-facing literals of one source file, as `file:line: text`. */
export function literalsIn(file: string, src: string): string[] {
  const out: string[] = [];
  const lines = src.split("\n");
  const code = stripComments(src);
  const lineOf = (i: number) => code.slice(0, i).split("\n").length;
  const report = (i: number, text: string) => {
    const n = lineOf(i);
    if (lines[n - 1]?.includes("i18n-ok") || lines[n - 2]?.includes("// i18n-ok")) return;
    if (/^\s*(?:import|export \* from)\b/.test(lines[n - 1] ?? "")) return;
    out.push(`${file}:${n}: ${text.trim().slice(0, 80)}`);
  };
  // JSX text between a tag's end and the next tag (not an arrow's `=>` or a comparison).
  if (file.endsWith(".tsx")) {
    for (const m of code.matchAll(/(?:[\w"'}/]>|\})([^<>{}]+)[<{]/g)) {
      // Type parameters, argument lists and statements (`Promise<…>`, `a, b`, `} else {`) are
      // code, not text.
      if (
        !WORD.test(m[1]) ||
        /[;=()`]|,\s*\n|^\s*(?:else|catch|finally|try|as|interface)\b/.test(m[1])
      ) {
        continue;
      }
      report(m.index!, m[1]);
    }
    for (const m of code.matchAll(SPOKEN_ATTR)) if (WORD.test(m[1])) report(m.index!, m[1]);
  }
  // Sentences in string and template literals.
  for (
    const m of code.matchAll(/"((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'|`((?:[^`\\]|\\.)*)`/g)
  ) {
    const text = (m[1] ?? m[2] ?? m[3] ?? "").replace(/\$\{[^}]*\}/g, " ");
    if (PROSE.test(text)) report(m.index!, text);
  }
  return [...new Set(out)];
}

Deno.test("visitor-facing sources write no prose outside the message catalogues", async () => {
  const found: string[] = [];
  for (const f of FILES) {
    found.push(...literalsIn(f, await Deno.readTextFile(new URL(`../${f}`, import.meta.url))));
  }
  assertEquals(found, []);
});

Deno.test("the literal check finds prose: JSX text, a sentence in a string, a spoken attribute", () => {
  const src = [
    "export function A() {",
    '  const x = "Your place is held.";',
    '  return <p aria-label="Progress bar">Enter now</p>;',
    "}",
  ].join("\n");
  assertEquals(literalsIn("a.tsx", src), [
    "a.tsx:3: Enter now",
    "a.tsx:3: Progress bar",
    "a.tsx:2: Your place is held.",
  ]);
  // Class names, codes and marked lines pass.
  const ok = [
    'const c = <p class="live hint">{m["wait.place"]}</p>;',
    'const s = "Tollgate demo"; // i18n-ok: a product name',
  ].join("\n");
  assertEquals(literalsIn("b.tsx", ok), []);
});
