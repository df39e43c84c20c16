import { readLink, unsealToken } from "../lib/edge/store.ts";
import { loginAs, TEST_PASSWORD } from "./admin_helpers.ts";
import { assert, assertEquals } from "./assert.ts";
import { edgeApp, kvText, linkedApp, LIVE_CONTROLS, TOKEN } from "./edge_helpers.ts";
import { captureConsole, makeApp } from "./helpers.ts";

// The API token: accepted formats, sealed storage, never shown, and TOKEN_SECRET rotation.

Deno.test("edge setup: a scannable cfut_ user token is accepted like a classic one", async () => {
  const e = await edgeApp();
  try {
    const token = `cfut_${"Ab3".repeat(13)}x0badf00d`;
    e.cf.addToken(token);
    const r = await e.client.req("POST", "/api/admin/setup/edge/token-verify", { token });
    assertEquals([r.status, r.json.tokenVerified], [200, true], r.text);
    const refused = await e.client.req("POST", "/api/admin/setup/edge/token-verify", {
      token: `cfat_${"Ab3".repeat(13)}x0badf00d`,
    });
    assertEquals(refused.status, 400);
    assert(refused.json.error.message.includes("account-owned token"), refused.json.error.message);
  } finally {
    await e.close();
  }
});
Deno.test("edge setup: the token is sealed; it is in no KV entry, response, audit entry or log line", async () => {
  const e = await edgeApp();
  try {
    const texts: string[] = [];
    const [, printed] = await captureConsole(async () => {
      for (
        const [m, p, b] of [
          ["POST", "/api/admin/setup/edge/token-verify", { token: TOKEN }],
          ["POST", "/api/admin/setup/edge/verify", {
            zone: "example.com",
            hostname: "queue.example.com",
          }],
          ["POST", "/api/admin/setup/edge/fix", {}],
          ["PUT", "/api/admin/setup/edge/ssl", { mode: "strict" }],
          ["POST", "/api/admin/setup/edge/attach-domain", { domain: "www.example.com" }],
          ["GET", "/api/admin/setup/edge", undefined],
          ["GET", "/api/admin/audit", undefined],
        ] as const
      ) {
        const r = await e.client.req(m, p, b);
        texts.push(r.text, JSON.stringify([...r.headers]));
      }
      e.cf.fail({
        status: 400,
        code: 6111,
        message: "Invalid format for Authorization header {token}",
      });
      const refused = await e.client.req("POST", "/api/admin/setup/edge/fix", {});
      assertEquals(refused.status, 400);
      assert(refused.text.includes("[token]"), "an echoed token is scrubbed");
      texts.push(refused.text);
    });
    const stored = await kvText(e.t.kv);
    assert(stored.includes("sealedToken"), "the sealed token is stored");
    for (
      const [what, text] of [["KV", stored], ["responses", texts.join("\n")], ["console", printed]]
    ) {
      assert(!text.includes(TOKEN), `the raw token appears in ${what}`);
      assert(!text.includes(TOKEN.slice(0, 20)), `a part of the token appears in ${what}`);
    }
  } finally {
    await e.close();
  }
});

Deno.test("TOKEN_SECRET rotation: the sealed token is unreadable, calls ask for it again, saving it again works", async () => {
  const e = await linkedApp();
  try {
    await e.client.req("POST", "/api/admin/setup/edge/token-verify", { token: TOKEN });
    const t2 = await makeApp({
      TOKEN_SECRET: "another-secret-another-secret-another-0123",
      CLOUDFLARE_API_BASE: e.t.config.CLOUDFLARE_API_BASE,
    }, { kv: e.t.kv });
    const admin = await loginAs(t2, "admin", TEST_PASSWORD);
    const g = await admin.req("GET", "/api/admin/edge");
    assertEquals([g.json.linked, g.json.hasToken, g.json.tokenReadable], [true, true, false]);
    const calls = e.cf.log.length;
    for (const [m, p, b] of LIVE_CONTROLS) {
      const r = await admin.req(m, p, b);
      assertEquals(
        [r.status, r.json.error.details.reason],
        [409, "edge_token_unreadable"],
        `${m} ${p}`,
      );
      assert(r.json.error.message.includes("save the token again"), r.json.error.message);
    }
    const setup = await admin.req("POST", "/api/admin/setup/edge/verify", {
      zone: "example.com",
      hostname: "queue.example.com",
    });
    assertEquals([setup.status, setup.json.error.details.reason], [409, "edge_token_unreadable"]);
    assert(setup.json.error.message.includes("paste the token again"));
    assertEquals((await admin.req("GET", "/api/admin/setup/edge")).json.tokenReadable, false);
    assertEquals(e.cf.log.length, calls, "nothing reached Cloudflare");

    const saved = await admin.req("PUT", "/api/admin/edge", { token: TOKEN });
    assertEquals([saved.status, saved.json.tokenReadable], [200, true], saved.text);
    const check = await admin.req("POST", "/api/admin/edge/check", {});
    assertEquals([check.status, check.json.ok], [200, true]);
    const old = (await readLink(e.t.kv))!;
    assertEquals(await unsealToken(e.t.config.TOKEN_SECRET, old.sealedToken), null);
  } finally {
    await e.close();
  }
});
