/**
 * The edge check (`POST /api/admin/edge/check`): reads the token, zone, the hostname's DNS, the
 * encryption mode, IP geolocation and every tracked domain, and says per item whether it is right
 * and, if not, what it means and what fixes it. It writes nothing.
 */
import type { CloudflareClient } from "./cloudflare.ts";
import { domainStatus, routableRecords } from "./dns.ts";
import { edgeStep } from "./failure.ts";
import type { EdgeLink } from "./state.ts";

/** One line of the summary. */
export interface CheckItem {
  item: string;
  ok: boolean;
  message: string;
}

/** The summary: `ok` when every item is. */
export interface EdgeCheck {
  ok: boolean;
  items: CheckItem[];
}

/** Reads the live state of the link from Cloudflare and sums it up in words. */
export async function checkEdge(cf: CloudflareClient, link: EdgeLink): Promise<EdgeCheck> {
  const items: CheckItem[] = [];
  const token = await edgeStep("verify the API token", () => cf.verifyToken());
  items.push({
    item: "token",
    ok: true,
    message: `the API token is active${token.expiresOn ? ` (expires ${token.expiresOn})` : ""}`,
  });

  const zone = await edgeStep("read the zone", () => cf.getZone(link.zoneId));
  items.push(
    zone.status === "active"
      ? { item: "zone", ok: true, message: `zone ${zone.name} is active on Cloudflare` }
      : {
        item: "zone",
        ok: false,
        message: `zone ${zone.name} is "${zone.status}": until its nameservers point at ` +
          `Cloudflare nothing is proxied; finish adding the site in the Cloudflare dashboard`,
      },
  );

  const records = await routableRecords(cf, link.zoneId, link.hostname);
  const shown = records.map((r) => `${r.type} ${r.content}`).join(", ");
  if (records.length === 0) {
    items.push({
      item: "dns",
      ok: false,
      message: `${link.hostname} has no A, AAAA or CNAME record; create one pointing at this ` +
        `server (fix-proxy with a target does it)`,
    });
  } else if (records.every((r) => r.proxied)) {
    items.push({ item: "dns", ok: true, message: `${link.hostname} is proxied (${shown})` });
  } else {
    items.push({
      item: "dns",
      ok: false,
      message: `${link.hostname} is not proxied (${shown}): visitors reach the server directly, ` +
        `without Cloudflare's protection or country header; run fix-proxy`,
    });
  }

  const ssl = await edgeStep(
    "read the SSL/TLS encryption mode",
    () => cf.getSetting(link.zoneId, "ssl"),
  );
  items.push(
    ssl === "strict" ? { item: "ssl", ok: true, message: "encryption mode is Full (strict)" } : {
      item: "ssl",
      ok: false,
      message: `encryption mode is "${ssl}": Cloudflare does not verify this server's ` +
        `certificate${link.ssl === "skipped" ? " (skipped during setup)" : ""}; set strict`,
    },
  );

  const geo = await edgeStep(
    "read IP geolocation",
    () => cf.getSetting(link.zoneId, "ip_geolocation"),
  );
  items.push(
    geo === "on" ? { item: "ip_geolocation", ok: true, message: "IP geolocation is on" } : {
      item: "ip_geolocation",
      ok: false,
      message: "IP geolocation is off: requests carry no country header, so a country block " +
        "cannot work; turn it on",
    },
  );

  for (const d of link.domains) {
    const st = await domainStatus(cf, link.zoneId, d, link.hostname);
    items.push({ item: `domain:${d}`, ok: st.ok, message: st.message });
  }
  return { ok: items.every((i) => i.ok), items };
}
