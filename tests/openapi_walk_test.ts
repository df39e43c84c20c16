/**
 * Every operation openapi.yaml documents is served at that method and path: walked with an
 * operator's credentials (the bearer secret, a signed-in admin session and the service's Origin),
 * none answers "no route" (Hono's 404 `not_found`) or 405, and each answers a status the contract
 * lists for it, in the error envelope when it is an error, with a JSON body of the documented
 * shape (`testing/schema_check.ts`: required fields there, no field the contract omits). The contract is generated from the
 * route schemas, but hand-mounted paths, prefixes and path parameters can still drift from it.
 */
import { parse } from "yaml";
import { assert, assertEquals } from "./assert.ts";
import { adminClient } from "./admin_helpers.ts";
import { makeApp } from "./helpers.ts";
import { checkSchema } from "../testing/schema_check.ts";

/** Calls that end the walk's own session or wipe the service: walked last. */
const LAST = new Set(["post /api/admin/logout", "post /api/admin/reset"]);

Deno.test("openapi walk: every documented operation is routed and answers a documented status", async () => {
  const t = await makeApp();
  const { client } = await adminClient(t);
  // deno-lint-ignore no-explicit-any
  const doc: any = parse(await Deno.readTextFile(new URL("../openapi.yaml", import.meta.url)));
  const ops: [string, string][] = [];
  for (const [path, item] of Object.entries<Record<string, unknown>>(doc.paths)) {
    for (const method of Object.keys(item)) ops.push([method, path]);
  }
  ops.sort((a, b) => Number(LAST.has(a.join(" "))) - Number(LAST.has(b.join(" "))));
  const problems: string[] = [];
  try {
    for (const [method, path] of ops) {
      const url = path.replace("{name}", "default").replace(/\{\w+\}/g, "x");
      const headers: Record<string, string> = {};
      if (!path.startsWith("/api/admin")) {
        headers.authorization = `Bearer ${t.config.TOKEN_SECRET}`;
      }
      const body = method === "get" || method === "head" ? undefined : {};
      const res = await client.req(method.toUpperCase(), url, body, headers);
      const op = `${method.toUpperCase()} ${path}`;
      if (res.status === 405 || res.json?.error?.message?.startsWith("no route for")) {
        problems.push(`${op}: not routed (${res.status})`);
        continue;
      }
      const documented = doc.paths[path][method].responses[String(res.status)];
      if (!documented) {
        problems.push(`${op}: answered ${res.status}, not in the contract`);
        continue;
      }
      // The body has the documented shape: every required field, no field the contract omits.
      const schema = documented.content?.["application/json"]?.schema;
      if (schema && res.json !== null) {
        for (const p of checkSchema(doc, schema, res.json)) {
          problems.push(`${op} ${res.status}: ${p}`);
        }
      }
      if (res.status >= 400 && res.headers.get("content-type")?.includes("json")) {
        const e = res.json?.error;
        if (typeof e?.code !== "string" || typeof e?.message !== "string") {
          problems.push(
            `${op}: ${res.status} outside the error envelope: ${res.text.slice(0, 80)}`,
          );
        }
      }
    }
    assert(ops.length > 100, `walked ${ops.length} operations`);
    assertEquals(problems, []);
  } finally {
    t.close();
  }
});

Deno.test("openapi walk: the shape checker finds a missing, a mistyped and an undocumented field", () => {
  const doc = {
    components: {
      schemas: {
        Base: { type: "object", properties: { a: { type: "integer" } }, required: ["a"] },
        Item: {
          allOf: [{ $ref: "#/components/schemas/Base" }, {
            type: "object",
            properties: { b: { type: ["string", "null"] }, c: { enum: ["x", "y"] } },
          }],
        },
      },
    },
  };
  const item = { $ref: "#/components/schemas/Item" };
  assertEquals(checkSchema(doc, item, { a: 1, b: null, c: "x" }), []);
  assertEquals(checkSchema(doc, item, { b: 2, c: "z", d: true }), [
    "$.a: required, missing",
    "$.b: integer, the contract says string or null",
    '$.c: "z" is not one of ["x","y"]',
    "$.d: not in the contract",
  ]);
  assertEquals(checkSchema(doc, { type: "array", items: item }, [{ a: 1.5 }]), [
    "$[0].a: number, the contract says integer",
  ]);
});
