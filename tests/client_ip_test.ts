import { Hono } from "hono";
import { clientIp } from "../lib/client_ip.ts";
import { assertEquals } from "./assert.ts";

async function ipOf(
  config: { CLIENT_IP_HEADER?: string },
  headers: Record<string, string>,
  env?: unknown,
) {
  const app = new Hono();
  app.get("/", (c) => c.text(clientIp(c, config)));
  // deno-lint-ignore no-explicit-any
  const res = await app.request("/", { headers }, env as any);
  return await res.text();
}

Deno.test("client IP: the configured header, right-most entry; never X-Forwarded-For by default", async () => {
  const socket = { remoteAddr: { transport: "tcp", hostname: "10.0.0.9", port: 5000 } };
  assertEquals(await ipOf({}, { "x-forwarded-for": "1.2.3.4" }, socket), "10.0.0.9");
  assertEquals(await ipOf({}, {}), "unknown");
  const cf = { CLIENT_IP_HEADER: "cf-connecting-ip" };
  assertEquals(await ipOf(cf, { "cf-connecting-ip": "2001:db8::1" }, socket), "2001:db8::1");
  assertEquals(await ipOf(cf, {}, socket), "unknown", "a configured header is the only source");
  // The client controls everything left of what the trusted proxy appended.
  const xff = { CLIENT_IP_HEADER: "x-forwarded-for" };
  assertEquals(
    await ipOf(xff, { "x-forwarded-for": "6.6.6.6, 203.0.113.7" }, socket),
    "203.0.113.7",
  );
});
