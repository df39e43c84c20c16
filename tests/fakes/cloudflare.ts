/**
 * A fake Cloudflare API v4 (under `/client/v4`, so tests set CLOUDFLARE_API_BASE to
 * `${server.url}/client/v4`), written from the public reference at developers.cloudflare.com/api:
 * the `{success, errors, messages, result}` envelope, `result_info` on lists, `GET
 * /user/tokens/verify`, `GET /zones?name=`, `GET /zones/{id}`, DNS records (list with
 * name/type/content filters, create, PATCH, DELETE) and the `ssl` / `ip_geolocation` settings
 * (those answered by ./cloudflare_zones.ts; token checks, failures and controls here).
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
import {
  EDGE_PERMS,
  env,
  type FakeRecord,
  type FakeToken,
  type FakeZone,
  hex32,
  refuse,
  routeZones,
} from "./cloudflare_zones.ts";
import type { FakeHandler } from "./serve.ts";

export {
  type CfPerm,
  EDGE_PERMS,
  type FakeRecord,
  type FakeToken,
  type FakeZone,
} from "./cloudflare_zones.ts";

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
    return routeZones(
      { zones, records },
      req.method,
      path,
      q,
      tok,
      (body ?? {}) as Record<string, unknown>,
    );
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
