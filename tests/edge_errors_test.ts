import { CloudflareClient } from "../lib/edge/cloudflare.ts";
import { cfRequest, ProviderError } from "../lib/edge/provider.ts";
import { assert, assertEquals, assertRejects } from "./assert.ts";
import { addDns, type EdgeApp, edgeApp, kvText, kvWithoutAudit, TOKEN } from "./edge_helpers.ts";
import { fakeCloudflare } from "./fakes/cloudflare.ts";
import { serveFakes } from "./fakes/serve.ts";

// Cloudflare failures through our envelope: the status and words the operator sees, and nothing
// written, neither in our store nor (for a refused step) in the zone.

const VERIFY = { zone: "example.com", hostname: "queue.example.com" };

interface Case {
  name: string;
  /** Puts the app one step before the failing call (token verified, zone verified...). */
  before: (e: EdgeApp) => Promise<void>;
  /** Arranges the failure in the fake. */
  arrange: (e: EdgeApp) => void;
  call: [string, string, unknown];
  status: number;
  kind: string;
  says: string[];
}

const tokenDone = async (e: EdgeApp) => {
  await e.client.req("POST", "/api/admin/setup/edge/token-verify", { token: TOKEN });
};
const zoneDone = async (e: EdgeApp) => {
  await tokenDone(e);
  await e.client.req("POST", "/api/admin/setup/edge/verify", VERIFY);
};
/** The token may read `area` but no longer edit it. */
const readOnly = (e: EdgeApp, area: "dns" | "settings") => {
  const perms = e.cf.tokens.get(TOKEN)!.perms;
  perms.delete(`${area}:edit`);
  perms.add(`${area}:read`);
};
const limited = (e: EdgeApp) =>
  e.cf.fail({
    status: 429,
    code: 971,
    message: "Please wait and consider throttling your request speed",
    retryAfter: 37,
  });

const CASES: Case[] = [
  {
    name: "an unknown token",
    before: async () => {},
    arrange: () => {},
    call: ["POST", "/api/admin/setup/edge/token-verify", {
      token: "NotAToken0000000000000000000000000000000",
    }],
    status: 400,
    kind: "bad_token",
    says: [
      "could not verify the API token",
      "invalid, expired or revoked",
      "Invalid API Token (1000)",
    ],
  },
  {
    name: "a disabled token",
    before: async () => {},
    arrange: (e) =>
      void e.cf.addToken("Disabled00000000000000000000000000000000", { status: "disabled" }),
    call: ["POST", "/api/admin/setup/edge/token-verify", {
      token: "Disabled00000000000000000000000000000000",
    }],
    status: 400,
    kind: "bad_token",
    says: ["the API token is disabled"],
  },
  {
    name: "a token revoked after it was verified",
    before: tokenDone,
    arrange: (e) => e.cf.tokens.delete(TOKEN),
    call: ["POST", "/api/admin/setup/edge/verify", VERIFY],
    status: 400,
    kind: "bad_token",
    says: ["Invalid access token (9109)", "create a new token"],
  },
  {
    name: "a token without Zone:Read",
    before: tokenDone,
    arrange: (e) => e.cf.tokens.get(TOKEN)!.perms.delete("zone:read"),
    call: ["POST", "/api/admin/setup/edge/verify", VERIFY],
    status: 400,
    kind: "forbidden",
    says: ["lacks a permission", "Unauthorized to access requested resource (9109)"],
  },
  {
    name: "a zone that does not exist",
    before: tokenDone,
    arrange: () => {},
    call: ["POST", "/api/admin/setup/edge/verify", {
      zone: "nothere.com",
      hostname: "q.nothere.com",
    }],
    status: 400,
    kind: "not_found",
    says: ['zone "nothere.com" was not found', "zone resources"],
  },
  {
    name: "a zone outside the token's zone resources",
    before: tokenDone,
    arrange: (e) => void (e.cf.tokens.get(TOKEN)!.zones = ["other.com"]),
    call: ["POST", "/api/admin/setup/edge/verify", VERIFY],
    status: 400,
    kind: "not_found",
    says: ['zone "example.com" was not found'],
  },
  {
    name: "a token without DNS:Edit",
    before: zoneDone,
    arrange: (e) => readOnly(e, "dns"),
    call: ["POST", "/api/admin/setup/edge/fix", {}],
    status: 400,
    kind: "forbidden",
    says: ["could not proxy the A record of queue.example.com", "Authentication error (10000)"],
  },
  {
    name: "a token without Zone Settings:Edit",
    before: zoneDone,
    arrange: (e) => readOnly(e, "settings"),
    call: ["PUT", "/api/admin/setup/edge/ssl", { mode: "strict" }],
    status: 400,
    kind: "forbidden",
    says: ["set the SSL/TLS encryption mode", "Authentication error (10000)"],
  },
  {
    name: "rate limiting",
    before: tokenDone,
    arrange: limited,
    call: ["POST", "/api/admin/setup/edge/verify", VERIFY],
    status: 429,
    kind: "rate_limited",
    says: ["rate limiting", "Please wait and consider throttling your request speed (971)"],
  },
  {
    name: "a timeout",
    before: zoneDone,
    arrange: (e) => e.cf.fail("timeout"),
    call: ["POST", "/api/admin/setup/edge/fix", {}],
    status: 504,
    kind: "timeout",
    says: ["did not answer within 200 ms"],
  },
  {
    name: "a Cloudflare outage",
    before: tokenDone,
    arrange: (e) => e.cf.fail({ status: 503, code: 0, message: "Service Unavailable" }),
    call: ["POST", "/api/admin/setup/edge/verify", VERIFY],
    status: 502,
    kind: "unavailable",
    says: ["try again later"],
  },
];

for (const c of CASES) {
  Deno.test(`edge errors: ${c.name} answers ${c.status} edge_error in words and changes nothing`, async () => {
    const e = await edgeApp();
    try {
      await c.before(e);
      c.arrange(e);
      const store = await kvWithoutAudit(e.t.kv);
      const zone = JSON.stringify([e.cf.records, e.cf.zones]);
      const writes = e.cf.writes().filter((w) => w.status < 300).length;
      const r = await e.client.req(...c.call);
      assertEquals([r.status, r.json?.error?.code], [c.status, "edge_error"], r.text);
      const d = r.json.error.details;
      assertEquals([d.provider, d.kind], ["cloudflare", c.kind]);
      assert(Array.isArray(d.providerErrors), "provider errors listed");
      for (const s of c.says) {
        assert(r.json.error.message.includes(s), `"${s}" in ${r.json.error.message}`);
      }
      if (c.status === 429) {
        assertEquals([r.headers.get("retry-after"), d.retryAfterSeconds], ["37", 37]);
      }
      assertEquals(await kvWithoutAudit(e.t.kv), store, "our store is unchanged");
      assertEquals(JSON.stringify([e.cf.records, e.cf.zones]), zone, "the zone is unchanged");
      assertEquals(e.cf.writes().filter((w) => w.status < 300).length, writes);
      assert(!r.text.includes(TOKEN) && !(await kvText(e.t.kv)).includes(TOKEN));
    } finally {
      await e.close();
    }
  });
}

Deno.test("edge errors: a step failing half-way writes no record; the repeat finishes it", async () => {
  const e = await edgeApp();
  try {
    await zoneDone(e);
    const before = await kvWithoutAudit(e.t.kv);
    // The DNS record gets proxied, then switching IP geolocation is refused (no Settings:Edit).
    readOnly(e, "settings");
    const r = await e.client.req("POST", "/api/admin/setup/edge/fix", {});
    assertEquals([r.status, r.json.error.details.step], [400, 'set IP geolocation to "on"']);
    assertEquals(e.cf.recordsOf("queue.example.com")[0].proxied, true, "Cloudflare did proxy");
    assertEquals(await kvWithoutAudit(e.t.kv), before, "but the step is not marked done");
    e.cf.tokens.get(TOKEN)!.perms.add("settings:edit");
    const patches = e.cf.writes().length;
    const again = await e.client.req("POST", "/api/admin/setup/edge/fix", {});
    assertEquals([again.status, again.json.fixed, again.json.dns.changed], [200, true, []]);
    assertEquals(e.cf.writes().length, patches + 1, "only IP geolocation is written now");
  } finally {
    await e.close();
  }
});

Deno.test("edge errors: Cloudflare unreachable is 502 edge_error", async () => {
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  const e = await edgeApp({ CLOUDFLARE_API_BASE: `http://127.0.0.1:${port}/client/v4` });
  try {
    const r = await e.client.req("POST", "/api/admin/setup/edge/token-verify", { token: TOKEN });
    assertEquals([r.status, r.json.error.code, r.json.error.details.kind], [
      502,
      "edge_error",
      "unavailable",
    ]);
    assertEquals(await e.t.kv.get(["settings", "setup", "edge"]).then((x) => x.value), null);
  } finally {
    await e.close();
  }
});

Deno.test("Cloudflare client: error codes decide the kind, lists follow every page, names match exactly", async () => {
  const cf = fakeCloudflare();
  const srv = serveFakes(cf.handler);
  const opts = { baseUrl: `${srv.url}/client/v4`, fetch: globalThis.fetch, timeoutMs: 2000 };
  try {
    cf.addToken(TOKEN);
    const zone = cf.addZone("example.com");
    // 403 + 9109 "Invalid access token" is a bad token, not a missing permission.
    const revoked = await assertRejects(() => new CloudflareClient(opts, "Gone").getZone(zone.id));
    assertEquals((revoked as ProviderError).kind, "bad_token");
    // 400 + 7003 "Could not route to ..." is something that does not exist.
    const client = new CloudflareClient(opts, TOKEN);
    const bad = await assertRejects(() => client.getZone("not-an-id"));
    assertEquals([(bad as ProviderError).kind, (bad as ProviderError).status], ["not_found", 400]);
    // A 429 without Retry-After still tells the caller to wait (60 s).
    cf.fail({ status: 429, code: 971, message: "Please wait" });
    const lim = await assertRejects(() => cfRequest(opts, TOKEN, "GET", "/user/tokens/verify"));
    assertEquals([(lim as ProviderError).kind, (lim as ProviderError).retryAfterSeconds], [
      "rate_limited",
      60,
    ]);

    for (let i = 0; i < 150; i++) {
      addDns(cf, "TXT", "x.example.com", `v${i}`);
    }
    addDns(cf, "A", "xx.example.com", "192.0.2.1");
    const got = await client.listDnsRecords(zone.id, { name: "X.example.com." });
    assertEquals(got.length, 150);
    assertEquals(cf.log.filter((l) => l.path.includes("/dns_records?")).length, 2, "two pages");
    assertEquals((await client.findZone("EXAMPLE.com")).id, zone.id);
  } finally {
    await srv.close();
  }
});
