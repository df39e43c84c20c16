/**
 * Every cookie's `Secure` follows one rule (http/cookies.ts): the request came over HTTPS,
 * directly, with `X-Forwarded-Proto: https`, or to a service published on an `https://`
 * PUBLIC_URL: a proxy that terminates TLS without sending the forwarded scheme still has the
 * visitor's browser on HTTPS. Here requests reach the served handler as plain `http://` without
 * that header, as behind such a proxy.
 */
import { assert, assertEquals } from "./assert.ts";
import { adminClient } from "./admin_helpers.ts";
import { makeApp } from "./helpers.ts";

const Q = "default";

/** The lower-cased attributes of the `Set-Cookie` of `name`, or null. */
function attrsOf(h: Headers, name: string): string[] | null {
  for (const sc of h.getSetCookie()) {
    const [pair, ...rest] = sc.split(";").map((s) => s.trim());
    if (pair.slice(0, pair.indexOf("=")) === name) return rest.map((a) => a.toLowerCase());
  }
  return null;
}

function join(id: string, cookie?: string): RequestInit {
  return {
    method: "POST",
    headers: { "content-type": "application/json", ...(cookie ? { cookie } : {}) },
    body: JSON.stringify({ queue: Q, visitorId: id }),
  };
}

for (
  const [publicUrl, secure] of [["https://tollgate.example", true], [undefined, false]] as const
) {
  Deno.test(`visitor cookies over plain http with PUBLIC_URL ${publicUrl ?? "unset"}: Secure ${secure}`, async () => {
    const t = await makeApp({ CAPACITY: 1, PUBLIC_URL: publicUrl });
    const a = await t.app.request("/join", join("secure-0001"));
    assertEquals(a.status, 200);
    assertEquals(attrsOf(a.headers, "tg_ticket")?.includes("secure"), secure, "tg_ticket");
    assertEquals(attrsOf(a.headers, "tg_access")?.includes("secure"), secure, "tg_access");
    const b = await t.app.request("/join", join("secure-0002"));
    assertEquals(b.status, 202);
    const ticket = b.headers.getSetCookie().find((c) => c.startsWith("tg_ticket="))!;
    const left = await t.app.request("/leave", join("secure-0002", ticket.split(";")[0]));
    assertEquals(left.status, 200);
    const cleared = attrsOf(left.headers, "tg_ticket")!;
    assert(cleared.includes("max-age=0") && cleared.includes("httponly"), "cleared, HttpOnly");
    assertEquals(cleared.includes("secure"), secure, "the clearing tg_ticket");
    const page = await t.app.request(`/wait/how-it-works?lang=de`);
    await page.body?.cancel();
    assertEquals(attrsOf(page.headers, "tg_lang")?.includes("secure"), secure, "tg_lang");
    t.close();
  });
}

Deno.test("the admin cookie follows the same rule, and its clearing cookie is HttpOnly too", async () => {
  const t = await makeApp();
  const { client } = await adminClient(t);
  const res = await client.req("POST", "/api/admin/logout");
  assertEquals(res.status, 200);
  const cleared = attrsOf(res.headers, "tg_admin")!;
  for (const a of ["max-age=0", "path=/", "httponly", "samesite=strict"]) {
    assert(cleared.includes(a), `clearing tg_admin lacks ${a}: ${cleared}`);
  }
  assert(!cleared.includes("secure"), "not Secure over plain http without PUBLIC_URL");
  t.close();
});
