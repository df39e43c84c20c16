/**
 * A fake Cloudflare API v4 (under `/client/v4`, so tests set CLOUDFLARE_API_BASE to
 * `${server.url}/client/v4`), written from the public reference at developers.cloudflare.com/api:
 * the `{success, errors, messages, result}` envelope, `result_info` on lists, `GET
 * /user/tokens/verify`, `GET /zones?name=`, `GET /zones/{id}`, DNS records (list with
 * name/type/content filters, create, PATCH, DELETE) and the `ssl` / `ip_geolocation` settings.
 *
 * Error bodies follow what Cloudflare answers (reference and reported responses): an unknown token
 * on verify is 401 code 1000 "Invalid API Token"; a malformed Authorization header 400 code 6003
 * "Invalid request headers" with error_chain 6111; an unknown token elsewhere 403 code 9109
 * "Invalid access token"; a zone the token may not see 403 code 9109 "Unauthorized to access
 * requested resource"; a missing permission 403 code 10000 "Authentication error"; a malformed id
 * 400 code 7003 "Could not route to …, perhaps your object identifier is invalid?" plus 7000; an
 * unknown record 404 code 81044 "Record does not exist."; a CNAME clash 400 code 81053. Rate
 * limiting (429 + `retry-after`, code 971) and timeouts are injected with `fail()`.
 */
import type { FakeHandler } from "./serve.ts";

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
/** An injected failure of the next call(s); `{token}` in `message` is replaced by the token sent. */
export type FakeFailure =
  | { status: number; code: number; message: string; retryAfter?: number }
  | "timeout";
/** One request the fake received (the token only by its id). */
export interface CfLogEntry {
  method: string;
  path: string;
  body: unknown;
  tokenId: string | null;
  status: number;
}

const hex32 = () => crypto.randomUUID().replaceAll("-", "");
const PRIVATE = /^(10\.|127\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.)/;
const SETTING_VALUES: Record<string, string[]> = {
  ssl: ["off", "flexible", "full", "strict"],
  ip_geolocation: ["on", "off"],
};

/** The fake and its controls. */
export interface FakeCloudflare {
  handler: FakeHandler;
  tokens: Map<string, FakeToken>;
  zones: FakeZone[];
  records: FakeRecord[];
  log: CfLogEntry[];
  addToken(value: string, opts?: Partial<Omit<FakeToken, "id">>): FakeToken;
  addZone(name: string, opts?: Partial<Omit<FakeZone, "name">>): FakeZone;
  addRecord(zone: string, rec: Omit<FakeRecord, "id" | "zoneId">): FakeRecord;
  zone(name: string): FakeZone;
  recordsOf(name: string): FakeRecord[];
  /** The next `times` calls fail like this. */
  fail(next: FakeFailure, times?: number): void;
  /** Calls that changed (or tried to change) something. */
  writes(): CfLogEntry[];
}

/** A fresh fake Cloudflare; `timeoutDelayMs` is how long a "timeout" failure stalls at most. */
export function fakeCloudflare(opts: { timeoutDelayMs?: number } = {}): FakeCloudflare {
  const tokens = new Map<string, FakeToken>();
  const zones: FakeZone[] = [];
  const records: FakeRecord[] = [];
  const log: CfLogEntry[] = [];
  const failures: FakeFailure[] = [];

  const env = (result: unknown, status = 200, extra: Record<string, unknown> = {}) =>
    Response.json({ success: true, errors: [], messages: [], result, ...extra }, { status });
  const refuse = (status: number, errors: Record<string, unknown>[], headers?: HeadersInit) =>
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

  function route(
    m: string,
    path: string,
    q: URLSearchParams,
    tok: FakeToken,
    body: Record<string, unknown>,
  ): Response {
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
          message:
            `Could not route to /client/v4${path}, perhaps your object identifier is invalid?`,
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

  async function stall(req: Request) {
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, opts.timeoutDelayMs ?? 2000);
      req.signal.addEventListener("abort", () => {
        clearTimeout(t);
        resolve();
      }, { once: true });
    });
  }

  const handler: FakeHandler = async (req) => {
    const u = new URL(req.url);
    if (!u.pathname.startsWith("/client/v4/")) return null;
    const path = u.pathname.slice("/client/v4".length);
    const auth = req.headers.get("authorization") ?? "";
    const raw = auth.match(/^Bearer (\S+)$/)?.[1] ?? null;
    const tok = raw ? tokens.get(raw) ?? null : null;
    const entry: CfLogEntry = {
      method: req.method,
      path: path + u.search,
      body: null,
      tokenId: tok?.id ?? null,
      status: 0,
    };
    log.push(entry);
    if (req.method !== "GET" && req.method !== "HEAD") {
      const text = await req.text();
      try {
        entry.body = text ? JSON.parse(text) : null;
      } catch {
        entry.body = text;
      }
    }
    const res = await answer(req, path, u.searchParams, raw, tok, entry.body);
    entry.status = res.status;
    return res;
  };

  async function answer(
    req: Request,
    path: string,
    q: URLSearchParams,
    raw: string | null,
    tok: FakeToken | null,
    body: unknown,
  ): Promise<Response> {
    const f = failures.shift();
    if (f === "timeout") {
      await stall(req);
      return refuse(504, [{ code: 504, message: "Gateway Timeout" }]);
    }
    if (f) {
      const headers = f.retryAfter ? { "retry-after": String(f.retryAfter) } : undefined;
      const message = f.message.replaceAll("{token}", raw ?? "");
      return refuse(f.status, [{ code: f.code, message }], headers);
    }
    if (!raw) {
      return refuse(400, [{
        code: 6003,
        message: "Invalid request headers",
        error_chain: [{ code: 6111, message: "Invalid format for Authorization header" }],
      }]);
    }
    if (path === "/user/tokens/verify" && req.method === "GET") {
      if (!tok) return refuse(401, [{ code: 1000, message: "Invalid API Token" }]);
      return env({ id: tok.id, status: tok.status }, 200, {
        messages: [{ code: 10000, message: "This API Token is valid and active", type: null }],
      });
    }
    if (!tok || tok.status !== "active") {
      return refuse(403, [{ code: 9109, message: "Invalid access token" }]);
    }
    return route(req.method, path, q, tok, (body ?? {}) as Record<string, unknown>);
  }

  const zone = (name: string) => {
    const z = zones.find((x) => x.name === name);
    if (!z) throw new Error(`fake has no zone ${name}`);
    return z;
  };
  return {
    handler,
    tokens,
    zones,
    records,
    log,
    addToken(value, o = {}) {
      const t: FakeToken = { id: hex32(), status: "active", perms: new Set(EDGE_PERMS), ...o };
      tokens.set(value, t);
      return t;
    },
    addZone(name, o = {}) {
      const z: FakeZone = {
        id: hex32(),
        name,
        status: "active",
        accountId: hex32(),
        settings: { ssl: "full", ip_geolocation: "off" },
        ...o,
      };
      zones.push(z);
      return z;
    },
    addRecord(zoneName, rec) {
      const r = { id: hex32(), zoneId: zone(zoneName).id, ...rec };
      records.push(r);
      return r;
    },
    zone,
    recordsOf: (name) => records.filter((r) => r.name === name),
    fail(next, times = 1) {
      for (let i = 0; i < times; i++) failures.push(next);
    },
    writes: () => log.filter((e) => e.method !== "GET"),
  };
}
