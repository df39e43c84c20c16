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
  // One after the other: a failing step names itself, and the first failure stops the check.
  const items: CheckItem[] = [
    await tokenItem(cf),
    await zoneItem(cf, link),
    await dnsItem(cf, link),
    await sslItem(cf, link),
    await geoItem(cf, link),
  ];
  for (const d of link.domains) {
    const st = await domainStatus(cf, link.zoneId, d, link.hostname);
    items.push({ item: `domain:${d}`, ok: st.ok, message: st.message });
  }
  return { ok: items.every((i) => i.ok), items };
}

/** The API token: active (and when it expires); an inactive one fails the step itself. */
async function tokenItem(cf: CloudflareClient): Promise<CheckItem> {
  const token = await edgeStep("verify the API token", () => cf.verifyToken());
  return {
    item: "token",
    ok: true,
    message: `the API token is active${token.expiresOn ? ` (expires ${token.expiresOn})` : ""}`,
  };
}

/** The zone: active, or pending until its nameservers point at Cloudflare. */
async function zoneItem(cf: CloudflareClient, link: EdgeLink): Promise<CheckItem> {
  const zone = await edgeStep("read the zone", () => cf.getZone(link.zoneId));
  return zone.status === "active"
    ? { item: "zone", ok: true, message: `zone ${zone.name} is active on Cloudflare` }
    : {
      item: "zone",
      ok: false,
      message: `zone ${zone.name} is "${zone.status}": until its nameservers point at ` +
        `Cloudflare nothing is proxied; finish adding the site in the Cloudflare dashboard`,
    };
}

/** The hostname's DNS: a record exists and every one of them is proxied. */
async function dnsItem(cf: CloudflareClient, link: EdgeLink): Promise<CheckItem> {
  const records = await routableRecords(cf, link.zoneId, link.hostname);
  const shown = records.map((r) => `${r.type} ${r.content}`).join(", ");
  if (records.length === 0) {
    return {
      item: "dns",
      ok: false,
      message: `${link.hostname} has no A, AAAA or CNAME record; create one pointing at this ` +
        `server (fix-proxy with a target does it)`,
    };
  }
  if (records.every((r) => r.proxied)) {
    return { item: "dns", ok: true, message: `${link.hostname} is proxied (${shown})` };
  }
  return {
    item: "dns",
    ok: false,
    message: `${link.hostname} is not proxied (${shown}): visitors reach the server directly, ` +
      `without Cloudflare's protection or country header; run fix-proxy`,
  };
}

/** The encryption mode: Full (strict), so Cloudflare verifies this server's certificate. */
async function sslItem(cf: CloudflareClient, link: EdgeLink): Promise<CheckItem> {
  const ssl = await edgeStep(
    "read the SSL/TLS encryption mode",
    () => cf.getSetting(link.zoneId, "ssl"),
  );
  return ssl === "strict"
    ? { item: "ssl", ok: true, message: "encryption mode is Full (strict)" }
    : {
      item: "ssl",
      ok: false,
      message: `encryption mode is "${ssl}": Cloudflare does not verify this server's ` +
        `certificate${link.ssl === "skipped" ? " (skipped during setup)" : ""}; set strict`,
    };
}

/** IP geolocation: on, or the country block has no country to go by. */
async function geoItem(cf: CloudflareClient, link: EdgeLink): Promise<CheckItem> {
  const geo = await edgeStep(
    "read IP geolocation",
    () => cf.getSetting(link.zoneId, "ip_geolocation"),
  );
  return geo === "on" ? { item: "ip_geolocation", ok: true, message: "IP geolocation is on" } : {
    item: "ip_geolocation",
    ok: false,
    message: "IP geolocation is off: requests carry no country header, so a country block " +
      "cannot work; turn it on",
  };
}
