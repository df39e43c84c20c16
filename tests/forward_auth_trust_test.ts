/**
 * `/verify/forward-auth` builds its redirect on the visitor's host from X-Forwarded-Proto/-Host.
 * With TRUSTED_PROXIES set, only the listed peers are believed (the rule of the client's
 * address): anyone else who reaches the port gets the relative path, not a redirect to a host it
 * named. Without TRUSTED_PROXIES every peer is believed, as the client address header is.
 */
import { assertEquals } from "./assert.ts";
import { makeApp } from "./helpers.ts";

const FORWARDED = {
  "x-forwarded-uri": "/shop",
  "x-forwarded-proto": "https",
  "x-forwarded-host": "shop.example.com",
};

function peer(hostname: string): Deno.ServeHandlerInfo {
  return {
    remoteAddr: { transport: "tcp", hostname, port: 40000 },
    completed: Promise.resolve(),
  } as unknown as Deno.ServeHandlerInfo;
}

async function locationFrom(
  fetch: (req: Request, info?: Deno.ServeHandlerInfo) => Response | Promise<Response>,
  from: string,
): Promise<string | null> {
  const req = new Request("http://tollgate.test/verify/forward-auth", { headers: FORWARDED });
  const res = await fetch(req, peer(from));
  assertEquals(res.status, 302);
  return res.headers.get("location");
}

Deno.test("forward-auth believes X-Forwarded-Host/-Proto from trusted proxies only", async () => {
  const t = await makeApp({ TRUSTED_PROXIES: "10.0.0.0/8", CLIENT_IP_HEADER: "x-real-ip" });
  try {
    const abs = "https://shop.example.com/wait?return=%2Fshop";
    assertEquals(await locationFrom(t.fetch, "10.1.2.3"), abs);
    assertEquals(await locationFrom(t.fetch, "203.0.113.9"), "/wait?return=%2Fshop");
    // The Hono route (app.request, no served fast path) follows the same rule.
    const viaHono = await t.hono.fetch(
      new Request("http://tollgate.test/verify/forward-auth", { headers: FORWARDED }),
      peer("203.0.113.9"),
    );
    assertEquals(viaHono.headers.get("location"), "/wait?return=%2Fshop");
  } finally {
    t.close();
  }
});

Deno.test("forward-auth without TRUSTED_PROXIES believes every peer, as before", async () => {
  const t = await makeApp();
  try {
    assertEquals(
      await locationFrom(t.fetch, "203.0.113.9"),
      "https://shop.example.com/wait?return=%2Fshop",
    );
  } finally {
    t.close();
  }
});
