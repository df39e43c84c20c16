/**
 * The zones part of the fake Cloudflare API v4 (see ./cloudflare.ts): its records, the
 * `{success, errors, messages, result}` envelope with `result_info` on lists, and the answers of
 * `GET /zones?name=`, `GET /zones/{id}`, DNS records (list with name/type/content filters, create,
 * PATCH, DELETE) and the `ssl` / `ip_geolocation` settings, with the error codes Cloudflare uses.
 */

/** Permissions a fake token can hold (Cloudflare's permission groups, by another name). */
export type CfPerm = "zone:read" | "dns:read" | "dns:edit" | "settings:read" | "settings:edit";
/** Everything the edge steps need. */
export const EDGE_PERMS: CfPerm[] = ["zone:read", "dns:edit", "settings:edit"];

/** A token the fake accepts. */
export interface FakeToken {
  id: string;
  status: "active" | "disabled" | "expired";
  perms: Set<CfPerm>;
  /** Zone names it may see; undefined = all. */
  zones?: string[];
}
/** A zone. */
export interface FakeZone {
  id: string;
  name: string;
  status: "active" | "pending";
  accountId: string;
  settings: { ssl: string; ip_geolocation: string };
}
/** A DNS record. */
export interface FakeRecord {
  id: string;
  zoneId: string;
  type: string;
  name: string;
  content: string;
  proxied: boolean;
}
export const hex32 = () => crypto.randomUUID().replaceAll("-", "");
const PRIVATE = /^(10\.|127\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.)/;
const SETTING_VALUES: Record<string, string[]> = {
  ssl: ["off", "flexible", "full", "strict"],
  ip_geolocation: ["on", "off"],
};

export const env = (result: unknown, status = 200, extra: Record<string, unknown> = {}) =>
  Response.json({ success: true, errors: [], messages: [], result, ...extra }, { status });
export const refuse = (status: number, errors: Record<string, unknown>[], headers?: HeadersInit) =>
  Response.json({ success: false, errors, messages: [], result: null }, { status, headers });
const list = (all: unknown[], q: URLSearchParams) => {
  const perPage = Math.min(Number(q.get("per_page") ?? 20) || 20, 5000);
  const page = Math.max(Number(q.get("page") ?? 1) || 1, 1);
  const slice = all.slice((page - 1) * perPage, page * perPage);
  return env(slice, 200, {
    result_info: {
      page,
      per_page: perPage,
      count: slice.length,
      total_count: all.length,
      total_pages: Math.max(1, Math.ceil(all.length / perPage)),
    },
  });
};
const zoneView = (z: FakeZone) => ({
  id: z.id,
  name: z.name,
  status: z.status,
  paused: false,
  type: "full",
  account: { id: z.accountId, name: "Fake account" },
  name_servers: ["ada.ns.cloudflare.com", "bob.ns.cloudflare.com"],
});
const recView = (r: FakeRecord) => ({
  id: r.id,
  zone_id: r.zoneId,
  type: r.type,
  name: r.name,
  content: r.content,
  proxied: r.proxied,
  proxiable: ["A", "AAAA", "CNAME"].includes(r.type) && !PRIVATE.test(r.content),
  ttl: 1,
});
const noPerm = () => refuse(403, [{ code: 10000, message: "Authentication error" }]);
const unauthorized = () =>
  refuse(403, [{ code: 9109, message: "Unauthorized to access requested resource" }]);

/**
 * Answers one authenticated call on the zones, DNS records and zone settings of `state` (the
 * token is already known to be active).
 */
export function routeZones(
  state: { zones: FakeZone[]; records: FakeRecord[] },
  m: string,
  path: string,
  q: URLSearchParams,
  tok: FakeToken,
  body: Record<string, unknown>,
): Response {
  const { zones, records } = state;
  const can = (...p: CfPerm[]) => p.some((x) => tok.perms.has(x));
  const sees = (z: FakeZone) => !tok.zones || tok.zones.includes(z.name);
  if (path === "/zones" && m === "GET") {
    if (!can("zone:read")) return unauthorized();
    const name = q.get("name")?.toLowerCase();
    return list(zones.filter((z) => sees(z) && (!name || z.name === name)).map(zoneView), q);
  }
  const zm = path.match(/^\/zones\/([^/]+)(\/.*)?$/);
  if (!zm) return refuse(404, [{ code: 7000, message: "No route for that URI" }]);
  const [, zid, rest = ""] = zm;
  if (!/^[0-9a-f]{32}$/.test(zid)) {
    return refuse(400, [
      {
        code: 7003,
        message: `Could not route to /client/v4${path}, perhaps your object identifier is invalid?`,
      },
      { code: 7000, message: "No route for that URI" },
    ]);
  }
  const zone = zones.find((z) => z.id === zid);
  if (!zone || !sees(zone)) return unauthorized();
  if (rest === "" && m === "GET") return can("zone:read") ? env(zoneView(zone)) : unauthorized();
  if (rest === "/dns_records" && m === "GET") {
    if (!can("dns:read", "dns:edit")) return noPerm();
    const name = (q.get("name") ?? q.get("name.exact"))?.toLowerCase();
    const type = q.get("type"), content = q.get("content");
    return list(
      records.filter((r) =>
        r.zoneId === zid && (!name || r.name === name) && (!type || r.type === type) &&
        (!content || r.content === content)
      ).map(recView),
      q,
    );
  }
  if (rest === "/dns_records" && m === "POST") {
    if (!can("dns:edit")) return noPerm();
    let name = String(body.name ?? "").toLowerCase();
    if (name !== zone.name && !name.endsWith(`.${zone.name}`)) name = `${name}.${zone.name}`;
    const same = records.filter((r) => r.zoneId === zid && r.name === name);
    const clash = same.some((r) =>
      (body.type === "CNAME" && ["A", "AAAA", "CNAME"].includes(r.type)) || r.type === "CNAME"
    );
    if (clash) {
      return refuse(400, [{
        code: 81053,
        message: "An A, AAAA, or CNAME record with that host already exists.",
      }]);
    }
    const r: FakeRecord = {
      id: hex32(),
      zoneId: zid,
      type: String(body.type),
      name,
      content: String(body.content),
      proxied: body.proxied === true,
    };
    if (r.proxied && !recView(r).proxiable) {
      return refuse(400, [{ code: 9004, message: "This record type cannot be proxied." }]);
    }
    records.push(r);
    return env(recView(r));
  }
  const rm = rest.match(/^\/dns_records\/([^/]+)$/);
  if (rm && (m === "PATCH" || m === "DELETE")) {
    if (!can("dns:edit")) return noPerm();
    const i = records.findIndex((r) => r.zoneId === zid && r.id === rm[1]);
    if (i < 0) return refuse(404, [{ code: 81044, message: "Record does not exist." }]);
    if (m === "DELETE") return env({ id: records.splice(i, 1)[0].id });
    const next = { ...records[i], ...("proxied" in body ? { proxied: !!body.proxied } : {}) };
    if (next.proxied && !recView(next).proxiable) {
      return refuse(400, [{ code: 9004, message: "This record type cannot be proxied." }]);
    }
    records[i] = next;
    return env(recView(next));
  }
  const sm = rest.match(/^\/settings\/(ssl|ip_geolocation)$/);
  if (sm) {
    const id = sm[1] as "ssl" | "ip_geolocation";
    const out = () => env({ id, value: zone.settings[id], editable: true, modified_on: null });
    if (m === "GET") return can("settings:read", "settings:edit") ? out() : noPerm();
    if (m !== "PATCH") return refuse(405, [{ code: 7001, message: "Method not allowed" }]);
    if (!can("settings:edit")) return noPerm();
    if (!SETTING_VALUES[id].includes(String(body.value))) {
      return refuse(400, [{ code: 1007, message: `Invalid value for zone setting ${id}` }]);
    }
    zone.settings[id] = String(body.value);
    return out();
  }
  return refuse(404, [{ code: 7000, message: "No route for that URI" }]);
}
