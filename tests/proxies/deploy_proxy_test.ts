/**
 * docs/deploy.md's reverse-proxy blocks (Caddy and nginx in front of Tollgate itself), the very
 * text with only the address, port and TLS lines swapped, run by Debian's Caddy and nginx in
 * front of a real Tollgate started with the settings the page names (`CLIENT_IP_HEADER=x-real-ip`,
 * `TRUSTED_PROXIES=127.0.0.1`): the client's own `X-Real-IP` and `cf-ipcountry` never reach
 * Tollgate, so an allowlisted or blocked address or country cannot be claimed through the proxy.
 * The same headers sent to Tollgate straight from loopback are believed: the check can fail.
 */
import { saveBypass, saveGeoBlock } from "../../lib/access/rules.ts";
import { assert, assertEquals } from "../assert.ts";
import { freePort } from "../server_procs.ts";
import {
  CADDY,
  missing,
  NGINX,
  type Proxy,
  startCaddyText,
  startNginxText,
  startTollgate,
} from "./procs.ts";

/** The fenced block of `lang` in docs/deploy.md (exactly one). */
function block(lang: string): string {
  const doc = Deno.readTextFileSync(new URL("../../docs/deploy.md", import.meta.url));
  const found = [...doc.matchAll(new RegExp("```" + lang + "\\n([\\s\\S]*?)```", "g"))];
  assertEquals(found.length, 1, `docs/deploy.md: one ${lang} block`);
  return found[0][1];
}

/** `text` with each `[from, to]` swapped; each must occur (the block drifted otherwise). */
function swap(text: string, swaps: [string | RegExp, string][]): string {
  for (const [from, to] of swaps) {
    assert(typeof from === "string" ? text.includes(from) : from.test(text), `no ${from}`);
    text = text.replace(from, to);
  }
  return text;
}

/** The scenario against the proxy `start` gives, in front of Tollgate on `port`. */
async function scenario(start: (proxyPort: number, tollgatePort: number) => Promise<Proxy>) {
  const tg = await startTollgate(["default"], {
    BASE_PATH: "",
    CLIENT_IP_HEADER: "x-real-ip",
    TRUSTED_PROXIES: "127.0.0.1",
  });
  const proxy = await start(freePort(), tg.port);
  try {
    const { kv, services } = tg;
    await saveBypass(kv, services.clock, "203.0.113.9");
    await saveGeoBlock(kv, services.clock, { enabled: true, countriesText: "FR", ttlHours: 1 });
    services.access.rules.invalidate();
    const join = async (base: string, headers: Record<string, string>) => {
      const r = await fetch(`${base}/join`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ queue: "default" }),
      });
      await r.body?.cancel();
      return r.status;
    };
    // Straight from loopback (a trusted peer) the headers are believed: allowlisted, blocked.
    assertEquals(await join(tg.base, { "x-real-ip": "203.0.113.9" }), 200, "control: allowlist");
    assertEquals(await join(tg.base, { "cf-ipcountry": "FR" }), 403, "control: country");
    // Through the documented proxy block: the client's copies are replaced or dropped.
    const through = {
      "x-real-ip": "203.0.113.9",
      "cf-ipcountry": "FR",
      "cf-connecting-ip": "1.1.1.1",
    };
    assertEquals(await join(proxy.base, through), 202, proxy.log());
    const health = await fetch(`${proxy.base}/health`);
    assertEquals((await health.json()).status, "ok");
  } finally {
    await proxy.stop();
    await tg.close();
  }
}

Deno.test({
  name:
    "docs/deploy.md's Caddy block: the client's X-Real-IP and cf-ipcountry never reach Tollgate",
  ignore: missing(CADDY) !== null,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () =>
    scenario((port, tollgate) =>
      startCaddyText(
        port,
        swap(block("caddy"), [
          ["queue.example.com {", `http://127.0.0.1:${port} {`],
          ["127.0.0.1:8000", `127.0.0.1:${tollgate}`],
        ]),
      )
    ),
});

Deno.test({
  name:
    "docs/deploy.md's nginx block: the client's X-Real-IP and cf-ipcountry never reach Tollgate",
  ignore: missing(NGINX) !== null,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () =>
    scenario((port, tollgate) => {
      const server = swap(block("nginx"), [
        ["listen 443 ssl;", `listen 127.0.0.1:${port};`],
        [/ *ssl_certificate .*\n/, ""],
        [/ *ssl_certificate_key .*\n/, ""],
        ["127.0.0.1:8000", `127.0.0.1:${tollgate}`],
      ]);
      return startNginxText(port, `events {}\nhttp {\n${server}}\n`);
    }),
});
