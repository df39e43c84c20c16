/**
 * Token checks for other stacks: `GET /verify`, the proxy checks `/verify/auth-request` (nginx)
 * and `/verify/forward-auth` (Caddy, Traefik), and docs/examples/verify-token.mjs run by Node.
 */
import { assert, assertEquals } from "./assert.ts";
import { makeApp, type TestApp } from "./helpers.ts";
import { Signer } from "../lib/tokens.ts";

const get = (t: TestApp, path: string, headers: Record<string, string> = {}) =>
  t.app.request(path, { headers });

Deno.test("/verify: 204 with the visitor's headers by header, query or cookie; 401 when expired, for another queue, tampered", async () => {
  const t = await makeApp({ QUEUES: ["default", "sale"] });
  const token = await t.services.signer.signAccessToken("visitor-v1", "default", t.clock.now(), 60);
  for (
    const [path, headers] of [
      ["/verify", { authorization: `Bearer ${token}` }],
      [`/verify?accessToken=${token}`, {}],
      ["/verify", { cookie: `x=1; tg_access=${token}` }],
      ["/verify?queue=default", { cookie: `tg_access=${token}` }],
    ] as [string, Record<string, string>][]
  ) {
    const r = await get(t, path, headers);
    assertEquals(r.status, 204, path);
    assertEquals(r.headers.get("x-tollgate-visitor"), "visitor-v1");
    assertEquals(r.headers.get("x-tollgate-queue"), "default");
  }
  const sale = await get(t, "/verify?queue=sale", { cookie: `tg_access=${token}` });
  assertEquals(sale.status, 401, "another queue's token");
  // A character inside the signature (the last one also carries padding bits).
  const at = token.length - 5;
  const tampered = token.slice(0, at) + (token[at] === "A" ? "B" : "A") + token.slice(at + 1);
  assertEquals((await get(t, "/verify", { cookie: `tg_access=${tampered}` })).status, 401);
  t.clock.advance(60_000);
  const expired = await get(t, "/verify", { cookie: `tg_access=${token}` });
  assertEquals(expired.status, 401, "expired at exp");
  assertEquals((await expired.json()).error.code, "unauthorized");
  t.close();
});

Deno.test("/verify/auth-request (nginx): 204, or 401 with a Location to the waiting room for the original URI", async () => {
  const t = await makeApp({ QUEUES: ["default", "other"] });
  const token = await t.services.signer.signAccessToken("visitor-n1", "default", t.clock.now(), 60);
  // A foreign Authorization (the app's own API key) does not hide the visitor's cookie.
  let r = await get(t, "/verify/auth-request", {
    authorization: "Bearer app-api-key",
    cookie: `tg_access=${token}`,
    "x-original-uri": "/shop",
  });
  assertEquals([r.status, r.headers.get("x-tollgate-visitor")], [204, "visitor-n1"]);
  r = await get(t, "/verify/auth-request", {
    "x-original-uri": `/shop/item?id=7&a=b%26c&accessToken=stale`,
    "x-original-method": "GET",
  });
  assertEquals(r.status, 401);
  assertEquals(r.headers.get("location"), "/wait?return=%2Fshop%2Fitem%3Fid%3D7%26a%3Db%2526c");
  assertEquals((await r.json()).error.details.waitUrl, r.headers.get("location"));
  r = await get(t, "/verify/auth-request", { "x-original-uri": "//evil.example/x" });
  assertEquals(r.headers.get("location"), "/wait", "an unsafe URI is not a return path");
  r = await get(t, "/verify/auth-request?queue=other", { cookie: `tg_access=${token}` });
  assertEquals(r.status, 401, "queue filter");
  t.close();
});

Deno.test("/verify/forward-auth (Caddy, Traefik): 204, 302 to the waiting room for GET/HEAD, 401 for other methods", async () => {
  const t = await makeApp();
  const token = await t.services.signer.signAccessToken("visitor-c1", "default", t.clock.now(), 60);
  let r = await get(t, "/verify/forward-auth", {
    cookie: `tg_access=${token}`,
    "x-forwarded-method": "POST",
    "x-forwarded-uri": "/cart",
  });
  assertEquals([r.status, r.headers.get("x-tollgate-queue")], [204, "default"]);
  for (const method of ["GET", "HEAD"]) {
    r = await get(t, "/verify/forward-auth", {
      "x-forwarded-method": method,
      "x-forwarded-uri": "/cart?step=2",
    });
    assertEquals(r.status, 302, method);
    assertEquals(r.headers.get("location"), "/wait?return=%2Fcart%3Fstep%3D2");
  }
  r = await get(t, "/verify/forward-auth", {
    "x-forwarded-method": "post",
    "x-forwarded-uri": "/cart",
  });
  assertEquals(r.status, 401);
  assertEquals((await r.json()).error.details.waitUrl, "/wait?return=%2Fcart");
  // Absolute on the visitor's host when the proxy says which (Traefik would otherwise resolve a
  // relative Location against Tollgate's internal address).
  r = await get(t, "/verify/forward-auth", {
    "x-forwarded-uri": "/cart",
    "x-forwarded-proto": "https",
    "x-forwarded-host": "shop.example.com",
  });
  assertEquals(r.headers.get("location"), "https://shop.example.com/wait?return=%2Fcart");
  r = await get(t, "/verify/forward-auth", {
    "x-forwarded-uri": "/cart",
    "x-forwarded-proto": "https",
    "x-forwarded-host": "evil.example/x?",
  });
  assertEquals(r.headers.get("location"), "/wait?return=%2Fcart", "not a host: relative");
  r = await get(t, "/verify/forward-auth", { "x-forwarded-uri": "/wait?queue=x" });
  assertEquals(r.headers.get("location"), "/wait", "never back into the waiting room");
  t.close();
});

// a protected application may get the token as `?accessToken=`. Behind nginx, Caddy or
// Traefik that query is the visitor's (X-Original-URI / X-Forwarded-Uri), not the check's own.
Deno.test("proxy checks: ?accessToken= in the original URI admits, like the origin proxy; a bad one does not", async () => {
  const t = await makeApp({ QUEUES: ["default", "sale"] });
  const token = await t.services.signer.signAccessToken("visitor-q1", "default", t.clock.now(), 60);
  for (
    const [path, header] of [
      ["/verify/auth-request", "x-original-uri"],
      ["/verify/forward-auth", "x-forwarded-uri"],
    ]
  ) {
    let r = await get(t, path, { [header]: `/cart?step=2&accessToken=${token}` });
    assertEquals([r.status, r.headers.get("x-tollgate-visitor")], [204, "visitor-q1"], path);
    // The parameter name percent-encoded, as the origin proxy and `/verify` read it.
    r = await get(t, path, { [header]: `/cart?%61ccessToken=${token}` });
    assertEquals(r.status, 204, `${path}: encoded name`);
    r = await get(t, `${path}?queue=sale`, { [header]: `/cart?accessToken=${token}` });
    assert(r.status !== 204, `${path}: another queue's token`);
    r = await get(t, path, { [header]: `/cart?accessToken=${token}x` });
    assert(r.status !== 204, `${path}: tampered`);
  }
  t.close();
});

/** Runs docs/examples/verify-token.mjs with Node; returns its exit code and output. */
async function runNodeExample(token: string, secret: string, queue?: string) {
  const script = new URL("../docs/examples/verify-token.mjs", import.meta.url).pathname;
  const out = await new Deno.Command("node", {
    args: [script, token, ...(queue ? [queue] : [])],
    env: { TOKEN_SECRET: secret },
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout).trim(),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

Deno.test("docs/examples/verify-token.mjs (Node, no Tollgate code) accepts our token and refuses tampered, expired, foreign and other-queue ones", async () => {
  const secret = "node-example-secret-node-example-secret";
  const signer = new Signer(secret);
  // Node checks expiry against the real clock, so the token is minted at real time.
  const now = Date.now();
  const token = await signer.signAccessToken("visitor-node-1", "default", now, 120);
  const ok = await runNodeExample(token, secret);
  assertEquals(ok.code, 0, ok.stderr);
  const claims = JSON.parse(ok.stdout);
  assertEquals([claims.sub, claims.queue, claims.exp - claims.iat], [
    "visitor-node-1",
    "default",
    120,
  ]);
  assertEquals((await runNodeExample(token, secret, "default")).code, 0);

  const [payload, sig] = token.split(".");
  const forged = btoa(JSON.stringify({ ...claims, queue: "vip" })).replace(/=+$/, "")
    .replace(/\+/g, "-").replace(/\//g, "_");
  const flipped = sig.slice(0, -2) + (sig.at(-2) === "A" ? "B" : "A") + sig.at(-1);
  const refused: [string, string, string?][] = [
    [`${forged}.${sig}`, "payload changed, signature kept"],
    [`${payload}.${flipped}`, "signature changed"],
    [`${payload}.${sig}.x`, "three parts"],
    [await signer.signAccessToken("v", "default", now - 3_600_000, 60), "expired"],
    [await new Signer(secret + "x").signAccessToken("v", "default", now, 60), "another secret"],
    [token, "another queue", "sale"],
  ];
  for (const [bad, why, queue] of refused) {
    const r = await runNodeExample(bad, secret, queue);
    assertEquals([r.code, r.stdout], [1, "invalid"], why);
  }
  assert(!ok.stdout.includes(secret), "the secret is never printed");
});
