import { Hono } from "hono";
import { ConfigError, parseEnv, testConfig } from "../lib/config.ts";
import { admissionChecker, requireAdmission } from "../http/require_admission.ts";
import { type AccessClaims, safeEqualString, Signer, timingSafeEqual } from "../lib/tokens.ts";
import { assert, assertEquals, assertRejects } from "./assert.ts";
import { Client, makeApp } from "./helpers.ts";

const SECRET = "unit-test-secret-0123456789-abcdefghij";
const NOW = Date.UTC(2026, 0, 1, 12, 0, 0, 250);
const enc = new TextEncoder();

/** base64url without padding, written independently of lib/tokens.ts. */
function b64u(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_")
    .replace(/=+$/, "");
}

function decodeB64u(s: string): string {
  const std = s.replaceAll("-", "+").replaceAll("_", "/");
  return atob(std + "=".repeat((4 - (std.length % 4)) % 4));
}

/** HMAC-SHA256 of `data` keyed with `secret`, base64url, computed with crypto.subtle directly. */
async function hmacB64u(secret: string, data: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    enc.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return b64u(new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(data))));
}

/** Builds a token by hand: base64url(JSON).base64url(HMAC over the base64url payload). */
async function handToken(secret: string, payload: unknown): Promise<string> {
  const body = b64u(enc.encode(JSON.stringify(payload)));
  return `${body}.${await hmacB64u(secret, body)}`;
}

/** Flips one character of the part of a token at `part` (0 payload, 1 signature). */
function tamper(token: string, part: 0 | 1): string {
  const parts = token.split(".");
  const s = parts[part];
  const i = Math.floor(s.length / 2);
  parts[part] = s.slice(0, i) + (s[i] === "A" ? "B" : "A") + s.slice(i + 1);
  return parts.join(".");
}

// ---------------------------------------------------------------- Signer

Deno.test("Signer.sign and open round-trip any JSON object payload", async () => {
  const s = new Signer(SECRET);
  const payload = { a: 1, b: "two", c: [3], d: { e: true } };
  const token = await s.sign(payload);
  assertEquals(await s.open(token), payload);
});

Deno.test("Signer.sign output equals an independent base64url(JSON).base64url(HMAC) computation", async () => {
  const s = new Signer(SECRET);
  const payload = { sub: "visitor-1234", queue: "default", iat: 100, exp: 200 };
  assertEquals(await s.sign(payload), await handToken(SECRET, payload));
});

Deno.test("Signer.open rejects tampering, another secret and malformed tokens", async () => {
  const s = new Signer(SECRET);
  const token = await s.sign({ sub: "abc", n: 1 });
  assertEquals(await s.open(tamper(token, 0)), null, "tampered payload");
  assertEquals(await s.open(tamper(token, 1)), null, "tampered signature");
  assertEquals(await new Signer(SECRET + "x").open(token), null, "other secret");
  // A payload swapped in under the original signature.
  const forgedBody = b64u(enc.encode(JSON.stringify({ sub: "evil", n: 1 })));
  assertEquals(await s.open(`${forgedBody}.${token.split(".")[1]}`), null, "swapped payload");
  for (
    const bad of [
      "",
      "nodot",
      ".sig",
      `${token}.extra`,
      token.split(".")[0] + ".",
      token.replace(".", ".!"),
      "a".repeat(5000) + "." + token.split(".")[1],
    ]
  ) {
    assertEquals(await s.open(bad), null, `malformed ${bad.slice(0, 20)}`);
  }
  assertEquals(await s.open(null), null);
  assertEquals(await s.open(undefined), null);
  // A correctly signed non-object payload is not accepted as claims.
  assertEquals(await s.open(await handToken(SECRET, [1, 2])), null, "array payload");
  assertEquals(await s.open(await handToken(SECRET, "str")), null, "string payload");
});

Deno.test("access token format: base64url(JSON).base64url(HMAC-SHA256 over the payload string)", async () => {
  const s = new Signer(SECRET);
  const token = await s.signAccessToken("visitor-abcdef", "default", NOW, 900);
  const parts = token.split(".");
  assertEquals(parts.length, 2);
  for (const p of parts) assert(/^[A-Za-z0-9_-]+$/.test(p), `not base64url without padding: ${p}`);
  // The signature is the HMAC over the base64url payload string, recomputed independently.
  assertEquals(parts[1], await hmacB64u(SECRET, parts[0]));
  assertEquals(decodeB64u(parts[1]).length, 32, "HMAC-SHA256 is 32 bytes");
  const claims = JSON.parse(decodeB64u(parts[0]));
  assertEquals(Object.keys(claims).sort(), ["exp", "iat", "queue", "sub"]);
  assertEquals(claims.sub, "visitor-abcdef");
  assertEquals(claims.queue, "default");
  assertEquals(claims.iat, Math.floor(NOW / 1000));
  assertEquals(claims.exp - claims.iat, 900);
});

Deno.test("access token lifetime follows the ttl argument exactly", async () => {
  const s = new Signer(SECRET);
  for (const ttl of [10, 60, 901, 86400]) {
    const c = await s.verifyAccessToken(await s.signAccessToken("v-12345678", "q", NOW, ttl), NOW);
    assert(c, `ttl ${ttl}`);
    assertEquals(c.exp - c.iat, ttl);
  }
});

Deno.test("verifyAccessToken accepts valid tokens until exp and rejects at and after exp", async () => {
  const s = new Signer(SECRET);
  const token = await s.signAccessToken("visitor-abcdef", "default", NOW, 60);
  const iat = Math.floor(NOW / 1000);
  const want: AccessClaims = { sub: "visitor-abcdef", queue: "default", iat, exp: iat + 60 };
  assertEquals(await s.verifyAccessToken(token, NOW), want);
  assertEquals(await s.verifyAccessToken(token, (iat + 60) * 1000 - 1), want, "1 ms before exp");
  assertEquals(await s.verifyAccessToken(token, (iat + 60) * 1000), null, "at exp");
  assertEquals(await s.verifyAccessToken(token, (iat + 3600) * 1000), null, "long after exp");
});

Deno.test("verifyAccessToken rejects another queue, tampering, another secret and extra or wrong claims", async () => {
  const s = new Signer(SECRET);
  const token = await s.signAccessToken("visitor-abcdef", "default", NOW, 60);
  assert(await s.verifyAccessToken(token, NOW, "default"), "same queue accepted");
  assertEquals(await s.verifyAccessToken(token, NOW, "other"), null, "other queue");
  assertEquals(await s.verifyAccessToken(tamper(token, 0), NOW), null, "tampered payload");
  assertEquals(await s.verifyAccessToken(tamper(token, 1), NOW), null, "tampered signature");
  assertEquals(await new Signer(SECRET + "!").verifyAccessToken(token, NOW), null, "other secret");
  const iat = Math.floor(NOW / 1000);
  const extra = await s.sign({ sub: "v", queue: "default", iat, exp: iat + 60, admin: true });
  assertEquals(await s.verifyAccessToken(extra, NOW), null, "extra claim");
  const wrongType = await s.sign({ sub: 5, queue: "default", iat, exp: iat + 60 });
  assertEquals(await s.verifyAccessToken(wrongType, NOW), null, "sub not a string");
  const fracExp = await s.sign({ sub: "v", queue: "default", iat, exp: iat + 60.5 });
  assertEquals(await s.verifyAccessToken(fracExp, NOW), null, "exp not an integer");
  const noExp = await s.sign({ sub: "v", queue: "default", iat, other: 1 });
  assertEquals(await s.verifyAccessToken(noExp, NOW), null, "missing exp");
});

Deno.test("tickets and access tokens are not interchangeable", async () => {
  const s = new Signer(SECRET);
  const ticket = await s.signTicket({
    sub: "visitor-1",
    queue: "default",
    iat: 1,
    seq: 4,
    nextCheckAt: 0,
  });
  assertEquals(await s.verifyTicket(ticket), {
    sub: "visitor-1",
    queue: "default",
    iat: 1,
    seq: 4,
    nextCheckAt: 0,
  });
  assertEquals(await s.verifyAccessToken(ticket, NOW), null, "ticket used as access token");
  const access = await s.signAccessToken("visitor-1", "default", NOW, 60);
  assertEquals(await s.verifyTicket(access), null, "access token used as ticket");
  assertEquals(await s.verifyTicket(tamper(ticket, 0)), null, "tampered ticket");
  const forged = await new Signer("another-secret-another-secret-0000").signTicket({
    sub: "visitor-1",
    queue: "default",
    iat: 1,
    seq: 4,
    nextCheckAt: 0,
  });
  assertEquals(await s.verifyTicket(forged), null, "ticket signed with another secret");
});

Deno.test("timingSafeEqual and safeEqualString compare exactly", () => {
  assert(timingSafeEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 3])));
  assert(!timingSafeEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 4])));
  assert(!timingSafeEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 3, 1])));
  assert(!timingSafeEqual(new Uint8Array([]), new Uint8Array([0])));
  assert(timingSafeEqual(new Uint8Array([]), new Uint8Array([])));
  assert(safeEqualString(SECRET, SECRET));
  assert(!safeEqualString(SECRET, SECRET + SECRET), "a repeated secret is not equal");
  assert(!safeEqualString(SECRET, SECRET.slice(0, -1)));
  assert(!safeEqualString("", SECRET));
});

Deno.test("tokens issued over HTTP carry exactly the four claims and exp-iat == ACCESS_TOKEN_TTL_SECONDS", async () => {
  const t = await makeApp({ ACCESS_TOKEN_TTL_SECONDS: 123 });
  await t.engine.tick("default");
  const c = new Client(t.app);
  const j = await c.join("default", "visitor-http-1");
  assertEquals(j.status, 200);
  const token: string = j.json.accessToken;
  const [body, sig] = token.split(".");
  assertEquals(sig, await hmacB64u(t.config.TOKEN_SECRET, body));
  const claims = JSON.parse(decodeB64u(body));
  assertEquals(Object.keys(claims).sort(), ["exp", "iat", "queue", "sub"]);
  assertEquals(claims.sub, "visitor-http-1");
  assertEquals(claims.queue, "default");
  assertEquals(claims.iat, Math.floor(t.clock.now() / 1000));
  assertEquals(claims.exp - claims.iat, 123);
  assertEquals(c.cookies.get("tg_access"), token);
  await new Promise((r) => setTimeout(r, 30));
  t.close();
});

// ---------------------------------------------------------------- requireAdmission

function protectedApp(opts: Parameters<typeof requireAdmission>[0]) {
  const app = new Hono<{ Variables: { admission: AccessClaims } }>();
  app.use("/p/*", requireAdmission(opts));
  app.get("/p/page", (c) => c.json({ claims: c.get("admission") }));
  app.get("/open", (c) => c.text("open"));
  return app;
}

Deno.test("requireAdmission: 401 JSON envelope without or with a bad token; unprotected paths pass", async () => {
  const s = new Signer(SECRET);
  const app = protectedApp({ secret: SECRET, now: () => NOW });
  const none = await app.request("/p/page");
  assertEquals(none.status, 401);
  assert(none.headers.get("content-type")?.includes("application/json"), "JSON error");
  const body = await none.json();
  assertEquals(body.error.code, "unauthorized");
  assertEquals(typeof body.error.message, "string");
  assertEquals(body.error.details, {});
  const token = await s.signAccessToken("visitor-x1", "default", NOW, 60);
  const bad = await app.request("/p/page", {
    headers: { authorization: `Bearer ${tamper(token, 0)}` },
  });
  assertEquals(bad.status, 401);
  const expired = await app.request("/p/page", {
    headers: {
      authorization: `Bearer ${await s.signAccessToken("v-123456", "default", NOW - 61_000, 60)}`,
    },
  });
  assertEquals(expired.status, 401, "expired token");
  const foreign = await app.request("/p/page", {
    headers: {
      authorization: `Bearer ${await new Signer(SECRET + "z").signAccessToken(
        "v",
        "default",
        NOW,
        60,
      )}`,
    },
  });
  assertEquals(foreign.status, 401, "token signed with another secret");
  assertEquals((await app.request("/open")).status, 200);
});

Deno.test("requireAdmission: a valid token via header, query or cookie passes with claims in c.get('admission')", async () => {
  const s = new Signer(SECRET);
  const token = await s.signAccessToken("visitor-ok-1", "default", NOW, 60);
  const iat = Math.floor(NOW / 1000);
  const want = { sub: "visitor-ok-1", queue: "default", iat, exp: iat + 60 };
  const app = protectedApp({ secret: SECRET, now: () => NOW });
  const viaHeader = await app.request("/p/page", { headers: { authorization: `Bearer ${token}` } });
  assertEquals(viaHeader.status, 200);
  assertEquals((await viaHeader.json()).claims, want);
  const viaQuery = await app.request(`/p/page?accessToken=${encodeURIComponent(token)}`);
  assertEquals(viaQuery.status, 200);
  assertEquals((await viaQuery.json()).claims, want);
  const viaCookie = await app.request("/p/page", {
    headers: { cookie: `a=b; tg_access=${token}; c=d` },
  });
  assertEquals(viaCookie.status, 200);
  assertEquals((await viaCookie.json()).claims, want);
});

Deno.test("requireAdmission: queue option, Signer instance as secret, and the injected clock", async () => {
  const s = new Signer(SECRET);
  const token = await s.signAccessToken("visitor-q-1", "default", NOW, 60);
  const h = { headers: { authorization: `Bearer ${token}` } };
  assertEquals(
    (await protectedApp({ secret: s, queue: "default", now: () => NOW }).request("/p/page", h))
      .status,
    200,
  );
  assertEquals(
    (await protectedApp({ secret: s, queue: "other", now: () => NOW }).request("/p/page", h))
      .status,
    401,
  );
  const later = protectedApp({ secret: SECRET, now: () => NOW + 61_000 });
  assertEquals((await later.request("/p/page", h)).status, 401, "expired by the injected clock");
});

Deno.test("requireAdmission: redirectTo sends unadmitted browsers to the waiting room", async () => {
  const app = protectedApp({ secret: SECRET, now: () => NOW, redirectTo: "/wait?return=/p/page" });
  const r = await app.request("/p/page");
  assertEquals(r.status, 302);
  assertEquals(r.headers.get("location"), "/wait?return=/p/page");
  const fnApp = protectedApp({
    secret: SECRET,
    now: () => NOW,
    redirectTo: (req) => `/wait?return=${encodeURIComponent(new URL(req.url).pathname)}`,
  });
  const r2 = await fnApp.request("/p/page");
  assertEquals(r2.status, 302);
  assertEquals(r2.headers.get("location"), "/wait?return=%2Fp%2Fpage");
  // An admitted visitor is not redirected.
  const token = await new Signer(SECRET).signAccessToken("visitor-r-1", "default", NOW, 60);
  const ok = await app.request("/p/page", { headers: { authorization: `Bearer ${token}` } });
  assertEquals(ok.status, 200);
});

Deno.test("admissionChecker returns claims or null; each token place is tried: header, query, cookie", async () => {
  const s = new Signer(SECRET);
  const token = await s.signAccessToken("visitor-c-1", "shop", NOW, 30);
  const check = admissionChecker({ secret: SECRET, now: () => NOW });
  const claims = await check(new Request(`http://x/?accessToken=${token}`));
  assertEquals(claims?.sub, "visitor-c-1");
  assertEquals(claims?.queue, "shop");
  assertEquals(await check(new Request("http://x/")), null);
  assertEquals(
    await admissionChecker({ secret: SECRET, now: () => NOW, queue: "other" })(
      new Request(`http://x/?accessToken=${token}`),
    ),
    null,
  );
  assertEquals(
    await admissionChecker({ secret: SECRET, now: () => NOW + 30_000 })(
      new Request(`http://x/?accessToken=${token}`),
    ),
    null,
    "expired",
  );
  // Each place is tried: header, query, cookie (`xtg_access` is not `tg_access`).
  const other = await s.signAccessToken("visitor-c-2", "shop", NOW, 30);
  const at = (url: string, headers: Record<string, string>) =>
    check(new Request(url, { headers })).then((c) => c?.sub ?? null);
  assertEquals(await at("http://x/", { authorization: `Bearer ${token}` }), "visitor-c-1");
  assertEquals(
    await at(`http://x/?accessToken=${token}`, { cookie: `tg_access=${other}` }),
    "visitor-c-1",
    "the query before the cookie",
  );
  assertEquals(
    await at("http://x/", { cookie: `xtg_access=${token}; tg_access=${other}` }),
    "visitor-c-2",
  );
  assertEquals(await at("http://x/", { cookie: `xtg_access=${token}` }), null);
  // A site's own bearer token does not hide a valid token in the query or cookie.
  const behindSiteAuth = new Request("http://x/", {
    headers: { authorization: "Bearer the-sites-own-api-token", cookie: `tg_access=${token}` },
  });
  assertEquals((await check(behindSiteAuth))?.sub, "visitor-c-1");
});

// ---------------------------------------------------------------- parseEnv

Deno.test("parseEnv: defaults of every variable", () => {
  const env = parseEnv({});
  assertEquals(env.PORT, 8000);
  assertEquals(env.TOKEN_SECRET, undefined);
  assertEquals(env.DENO_KV_PATH, "./data/waiting-room.kv");
  assertEquals(env.ADMISSION_MODE, "queue");
  assertEquals(env.ADMIT_PER_SECOND, 10);
  assertEquals(env.CAPACITY, 500);
  assertEquals(env.MAX_WAITING_VISITORS, 1_000_000);
  assertEquals(env.ACCESS_TOKEN_TTL_SECONDS, 900);
  assertEquals(env.QUEUES, ["default"]);
  assertEquals(env.ORIGIN_URL, undefined);
  assertEquals(env.CLIENT_IP_HEADER, undefined);
  assertEquals(env.GEO_COUNTRY_HEADER, "cf-ipcountry");
  assertEquals(env.WAITING_ROOM_POLL_INTERVAL_MS, undefined);
  assertEquals(env.WAITING_ROOM_HEARTBEAT_INTERVAL_MS, undefined);
});

Deno.test("parseEnv: empty strings mean unset, and unknown variables are ignored", () => {
  const env = parseEnv({ PORT: "", CAPACITY: "", QUEUES: "", HOME: "/root", PATH: "/bin" });
  assertEquals(env.PORT, 8000);
  assertEquals(env.CAPACITY, 500);
  assertEquals(env.QUEUES, ["default"]);
});

Deno.test("parseEnv: valid values are parsed and typed", () => {
  const env = parseEnv({
    PORT: "8080",
    TOKEN_SECRET: "x".repeat(32),
    DENO_KV_PATH: ":memory:",
    ADMISSION_MODE: "lottery",
    ADMIT_PER_SECOND: "0.5",
    CAPACITY: " 25 ",
    MAX_WAITING_VISITORS: "50000000",
    ACCESS_TOKEN_TTL_SECONDS: "60",
    QUEUES: "default, shop-1 ,b_2",
    ORIGIN_URL: "https://origin.example",
    CLIENT_IP_HEADER: "cf-connecting-ip",
    WAITING_ROOM_POLL_INTERVAL_MS: "15000",
  });
  assertEquals(env.PORT, 8080);
  assertEquals(env.TOKEN_SECRET, "x".repeat(32));
  assertEquals(env.ADMISSION_MODE, "lottery");
  assertEquals(env.ADMIT_PER_SECOND, 0.5);
  assertEquals(env.CAPACITY, 25);
  assertEquals(env.MAX_WAITING_VISITORS, 50_000_000);
  assertEquals(env.ACCESS_TOKEN_TTL_SECONDS, 60);
  assertEquals(env.QUEUES, ["default", "shop-1", "b_2"]);
  assertEquals(env.ORIGIN_URL, "https://origin.example");
  assertEquals(env.CLIENT_IP_HEADER, "cf-connecting-ip");
  assertEquals(env.WAITING_ROOM_POLL_INTERVAL_MS, 15000);
  assertEquals(parseEnv({ ADMIT_PER_SECOND: "0.1" }).ADMIT_PER_SECOND, 0.1);
  assertEquals(parseEnv({ ADMIT_PER_SECOND: "100000" }).ADMIT_PER_SECOND, 100000);
});

/** Each bad value must raise a one-line ConfigError naming its variable. */
const BAD_ENV: [string, string][] = [
  ["ADMIT_PER_SECOND", "0"],
  ["ADMIT_PER_SECOND", "0.05"],
  ["ADMIT_PER_SECOND", "100001"],
  ["ADMIT_PER_SECOND", "abc"],
  ["ADMIT_PER_SECOND", "-5"],
  ["CAPACITY", "abc"],
  ["CAPACITY", "0"],
  ["CAPACITY", "1.5"],
  ["CAPACITY", "10000001"],
  ["QUEUES", "Bad!"],
  ["QUEUES", "default,Bad!"],
  ["QUEUES", "-leading-dash"],
  ["QUEUES", "x".repeat(65)],
  ["QUEUES", " , "],
  ["TOKEN_SECRET", "short"],
  ["TOKEN_SECRET", "x".repeat(31)],
  ["ADMISSION_MODE", "x"],
  ["ADMISSION_MODE", "FIFO"],
  ["PORT", "70000"],
  ["PORT", "-1"],
  ["PORT", "http"],
  ["MAX_WAITING_VISITORS", "0"],
  ["MAX_WAITING_VISITORS", "50000001"],
  ["ACCESS_TOKEN_TTL_SECONDS", "-1"],
  ["ACCESS_TOKEN_TTL_SECONDS", "abc"],
  ["ORIGIN_URL", "ftp://origin.example"],
  ["ORIGIN_URL", "not a url"],
  ["CLIENT_IP_HEADER", "bad header!"],
  ["GEO_COUNTRY_HEADER", "a b"],
  ["WAITING_ROOM_POLL_INTERVAL_MS", "10"],
  ["WAITING_ROOM_HEARTBEAT_INTERVAL_MS", "soon"],
];

for (const [name, value] of BAD_ENV) {
  Deno.test(`parseEnv: ${name}=${JSON.stringify(value.slice(0, 20))} is a ConfigError naming ${name}`, async () => {
    const err = await assertRejects(() =>
      Promise.resolve().then(() => parseEnv({ [name]: value }))
    );
    assert(
      err instanceof ConfigError,
      `expected ConfigError, got ${err?.constructor?.name}: ${err.message}`,
    );
    assert(err.message.includes(name), `message does not name ${name}: ${err.message}`);
    assert(!err.message.includes("\n"), `message is not one line: ${err.message}`);
  });
}

Deno.test("parseEnv: a bad TOKEN_SECRET is not echoed in the error message", async () => {
  const secret = "my-short-secret";
  const err = await assertRejects(() =>
    Promise.resolve().then(() => parseEnv({ TOKEN_SECRET: secret }))
  );
  assert(err instanceof ConfigError);
  assert(!err.message.includes(secret), `secret leaked: ${err.message}`);
});

Deno.test("parseEnv: with several bad variables the error names one of them, and good ones are not blamed", async () => {
  const err = await assertRejects(() =>
    Promise.resolve().then(() =>
      parseEnv({ CAPACITY: "abc", PORT: "8080", ADMISSION_MODE: "queue" })
    )
  );
  assert(err instanceof ConfigError);
  assert(err.message.includes("CAPACITY"), err.message);
  assert(!err.message.includes("PORT"), err.message);
});

Deno.test("testConfig: defaults plus a fixed 32+ character secret and in-memory KV, with overrides", () => {
  const c = testConfig({ CAPACITY: 3 });
  assertEquals(c.CAPACITY, 3);
  assertEquals(c.DENO_KV_PATH, ":memory:");
  assert(c.TOKEN_SECRET.length >= 32);
  assertEquals(c.ADMIT_PER_SECOND, 10);
  assertEquals(c.ACCESS_TOKEN_TTL_SECONDS, 900);
});
