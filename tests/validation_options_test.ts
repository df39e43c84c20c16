/**
 * A refused value of a field that takes one of a few fixed values names those values: zod's own
 * word for a failed union was a bare "Invalid input" (`queueStatusCode: 418`, an empty
 * `setup/edge/ssl` body), which left an API client guessing what to send. Found by a black-box
 * sweep of every admin write with bad input; the value stays unchanged (read back).
 */
import { z } from "zod";
import { issueFields } from "../http/validation.ts";
import { assertEquals } from "./assert.ts";
import { adminClient } from "./admin_helpers.ts";
import { makeApp } from "./helpers.ts";

Deno.test("validation: a union of fixed values is refused naming its options", () => {
  const codes = z.union([z.literal(200), z.literal(429), z.literal(503)]);
  assertEquals(issueFields(codes.safeParse(418).error!.issues), [{
    path: "",
    message: "Invalid option: expected one of 200|429|503",
    rule: { code: "invalid_value", values: ["200", "429", "503"] },
  }]);
  const shapes = z.union([
    z.object({ mode: z.literal("strict") }),
    z.object({ skip: z.literal(true) }),
  ]);
  assertEquals(
    issueFields(shapes.safeParse({}).error!.issues)[0].message,
    'Invalid option: expected one of {"mode":"strict"} or {"skip":true}',
  );
  // Any other union keeps zod's words (nothing better to say than the types).
  const other = z.union([z.string(), z.number()]);
  assertEquals(issueFields(other.safeParse(null).error!.issues)[0].message, "Invalid input");
});

Deno.test("validation: the admin API names the options of such fields, and changes nothing", async () => {
  const t = await makeApp();
  const { client } = await adminClient(t);
  try {
    const before = await client.req("GET", "/api/admin/crawlers");
    const res = await client.req("PUT", "/api/admin/crawlers", {
      crawlers: "pass",
      queueStatusCode: 418,
    });
    assertEquals(res.status, 400);
    assertEquals(
      res.json.error.message,
      "invalid request body: queueStatusCode: Invalid option: expected one of 200|429|503",
    );
    assertEquals((await client.req("GET", "/api/admin/crawlers")).json, before.json);
    const ssl = await client.req("PUT", "/api/admin/setup/edge/ssl", {});
    assertEquals(ssl.status, 400);
    assertEquals(
      ssl.json.error.details.fields[0].message,
      'Invalid option: expected one of {"mode":"strict"} or {"skip":true}',
    );
    // A query value that is no number is said so, not as "received NaN".
    const audit = await client.req("GET", "/api/admin/audit?limit=abc");
    assertEquals(
      [audit.status, audit.json.error.message],
      [400, "invalid query: limit: Invalid input: expected a number"],
    );
    // An https URL with a user:password part is told what is wrong with it.
    const hook = await client.req("PUT", "/api/admin/webhooks", {
      enabled: true,
      url: "https://user:pw@hooks.example.com/x",
      events: ["pause"],
    });
    assertEquals(hook.status, 400);
    assertEquals(
      hook.json.error.details.fields[0].message,
      "must be an https:// URL without user:password (or empty while disabled)",
    );
  } finally {
    t.close();
  }
});
