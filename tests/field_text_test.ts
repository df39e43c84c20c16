/**
 * lib/field_text.ts, the one mapping from `details.fields` to people's words: every admin API
 * field named in openapi.yaml is sent every kind of bad value (empty, negative, too big, wrong
 * format, unicode, HTML, wrong type), and whatever the service refuses must be worded for a
 * person (no pattern, field key or validator text), each field once.
 */
import { parse } from "yaml";
import { assert, assertEquals } from "./assert.ts";
import { adminClient } from "./admin_helpers.ts";
import { makeApp } from "./helpers.ts";
import { fieldLabel, fieldProblems, fieldSentence, plainEnough } from "../lib/field_text.ts";
import { issueFields } from "../http/validation.ts";
import { z } from "zod";

const BAD: unknown[] = ["", -5, 1e14, "not valid!", "ünï©ødé 😀", "<b>x</b>", 0.5, null, true, {}];

/** Each admin write with a JSON body and the fields it takes (from openapi.yaml). */
async function adminWrites(): Promise<{ method: string; path: string; fields: string[] }[]> {
  // deno-lint-ignore no-explicit-any
  const doc: any = parse(await Deno.readTextFile(new URL("../openapi.yaml", import.meta.url)));
  const out = [];
  // deno-lint-ignore no-explicit-any
  const props = (s: any): string[] => {
    if (!s) return [];
    if (s.$ref) s = doc.components.schemas[s.$ref.split("/").pop()];
    return [
      ...Object.keys(s.properties ?? {}),
      ...(s.allOf ?? []).flatMap(props),
      ...(s.anyOf ?? []).flatMap(props),
    ];
  };
  for (const [path, ops] of Object.entries<Record<string, unknown>>(doc.paths)) {
    if (!path.startsWith("/api/admin/") || path.includes("{")) continue;
    // deno-lint-ignore no-explicit-any
    for (const [method, op] of Object.entries<any>(ops)) {
      const schema = op.requestBody?.content?.["application/json"]?.schema;
      const fields = [...new Set(props(schema))];
      if (fields.length) out.push({ method: method.toUpperCase(), path, fields });
    }
  }
  return out;
}

/** Camel-case API keys: never in a message. */
const KEY = /\b[a-z]+[A-Z][A-Za-z]*\b/;

Deno.test("field text: every admin field's every bad value is worded for a person, once", async () => {
  const t = await makeApp({ QUEUES: ["default"] });
  try {
    const { client } = await adminClient(t);
    const writes = await adminWrites();
    assert(writes.length > 25, `only ${writes.length} admin writes found`);
    const bad: string[] = [];
    let worded = 0;
    for (const w of writes) {
      if (/logout|claim|setup$|recovery|password|tos|challenge\/use-builtin/.test(w.path)) continue;
      for (const field of w.fields) {
        for (const value of BAD) {
          const body: Record<string, unknown> = { queue: "default", [field]: value };
          const r = await client.req(w.method, w.path, body);
          const fields = r.json?.error?.details?.fields;
          if (r.status !== 400 || !Array.isArray(fields)) continue;
          const problems = fieldProblems(fields);
          const texts = problems.map((p) => `${p.label}: ${p.text}`);
          for (const text of texts) {
            worded++;
            if (!plainEnough(text) || KEY.test(text)) {
              bad.push(`${w.method} ${w.path} ${field}=${JSON.stringify(value)}: ${text}`);
            }
          }
          if (new Set(texts).size !== texts.length) {
            bad.push(`${w.method} ${w.path} ${field}: said twice: ${texts.join(" | ")}`);
          }
        }
      }
    }
    assert(worded > 300, `only ${worded} refusals worded`);
    assertEquals(bad, [], bad.join("\n"));
  } finally {
    await t.close();
  }
});

Deno.test("field text: the sentences the issue asked for", () => {
  const rule = (code: string, more = {}) => ({ code, ...more });
  const say = (path: string, r: ReturnType<typeof rule>) =>
    fieldSentence({ path, message: "", rule: r });
  assertEquals(
    say("name", rule("invalid_format", { format: "regex" })),
    "Use lowercase letters, digits, - and _; start with a letter or digit; at most 64 characters.",
  );
  assertEquals(
    say("admitPerSecond", rule("too_small", { origin: "number", minimum: 0.1, inclusive: true })),
    "At least 0.1 a second.",
  );
  assertEquals(
    say("capacity", rule("too_big", { origin: "number", maximum: 1e7, inclusive: true })),
    "At most 10,000,000 visitors at once.",
  );
  assertEquals(
    say("logoUrl", rule("custom")),
    "Leave it empty, or use a path on this site (starting with /) or an https:// address.",
  );
  assertEquals(fieldLabel("admitPerSecond"), "Admit per second");
  // A domain message keeps its words, without the field key it starts with.
  assertEquals(
    fieldSentence({ path: "opensAt", message: "opensAt: must be in the future" }),
    "Opening time must be in the future.",
  );
  // A lane's fields by their parent ("name" alone is a queue's); a share in the form's percent.
  assertEquals(fieldLabel("lanes.0.name"), "Lane name");
  assertEquals(
    say("lanes.1.name", rule("invalid_format", { format: "regex" })),
    "Use lowercase letters, digits, - and _; start with a letter or digit; at most 32 characters.",
  );
  const share = "Use a share above 0% and below 100%, or make the lane strict.";
  assertEquals(say("lanes.0.share", rule("too_big", { origin: "number", maximum: 1 })), share);
  assertEquals(
    fieldSentence({
      path: "lanes.0.share",
      message: "a share between 0 and 1 (0.3 is 30%), or strict: true",
    }),
    share,
  );
  assertEquals(
    fieldSentence({ path: "expiresAt", message: "must be in the future" }),
    "Expiry must be in the future.",
  );
  // The same field refused twice for the same reason is said once.
  const twice = fieldProblems([
    { path: "capacity", message: "x", rule: rule("too_small", { minimum: 1, origin: "number" }) },
    { path: "capacity", message: "y", rule: rule("too_small", { minimum: 1, origin: "number" }) },
  ]);
  assertEquals(twice.length, 1);
});

Deno.test("field text: zod's own text never decides the words (issueFields carries the rule)", () => {
  const r = z.object({ n: z.number().min(3), s: z.string().regex(/^[a-z]+$/) })
    .safeParse({ n: 1, s: "A" });
  assert(!r.success);
  const fields = issueFields(r.error.issues);
  assertEquals(fields[0].rule?.code, "too_small");
  assertEquals(fields[0].rule?.minimum, 3);
  assertEquals(fields[1].rule?.format, "regex");
  for (const f of fields) assert(plainEnough(fieldSentence(f)), fieldSentence(f));
  assert(!plainEnough("Too small: expected number to be >=0.1"));
  assert(!plainEnough("must match ^[a-z0-9][a-z0-9_-]{0,63}$"));
  assert(!plainEnough("logoUrl must be empty"));
});
