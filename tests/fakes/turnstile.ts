/**
 * A fake Turnstile for tests: the widget API of Cloudflare's API v4
 * (`/accounts/{id}/challenges/widgets[/{sitekey}]`, any base path) and siteverify
 * (`…/turnstile/v0/siteverify`), as a `FakeHandler` for `serveFakes`, so it can share one loopback
 * server with the fake Cloudflare zones API. Behaviour follows Cloudflare's docs: bearer tokens
 * with an account scope and the Turnstile permission, the v4 envelope, single-use responses
 * (`timeout-or-duplicate` on reuse, unless the same `idempotency_key` repeats), form or JSON.
 */
import type { FakeHandler } from "./serve.ts";

/** What a fake API token may do. */
export interface FakeToken {
  /** Accounts it can see. */
  accounts: string[];
  /** Has `Account:Turnstile:Edit`. */
  turnstile: boolean;
}

/** A widget the fake holds. */
export interface FakeWidget {
  sitekey: string;
  secret: string;
  accountId: string;
  name: string;
  domains: string[];
  mode: string;
}

/** A failure the next matching calls get. */
export type FakeFailure =
  | "rate_limited" // 429 with Retry-After
  | "unavailable" // 503
  | "hang" // answers only after `hangMs` (longer than the client's timeout)
  | "internal-error" // siteverify: success false, ["internal-error"]
  | "garbage"; // 200 with a body that is not JSON

/** One request the fake answered. */
export interface FakeTurnstileCall {
  kind: "widgets" | "siteverify";
  method: string;
  path: string;
  authorization: string | null;
  contentType: string | null;
  body: Record<string, unknown> | null;
}

/** The fake, its state and its knobs. */
export interface FakeTurnstile {
  handler: FakeHandler;
  widgets: Map<string, FakeWidget>;
  tokens: Map<string, FakeToken>;
  accounts: Set<string>;
  log: FakeTurnstileCall[];
  /** How long a "hang" lasts (ms). */
  hangMs: number;
  /** The next `times` calls of `kind` fail with `failure`. */
  fail(kind: FakeTurnstileCall["kind"], failure: FakeFailure, times?: number): void;
  /** A response token as if a visitor solved `sitekey`'s widget on `hostname`; valid once. */
  solve(sitekey: string, hostname: string, action?: string): string;
  /** The siteverify calls seen. */
  verifies(): FakeTurnstileCall[];
}

const WIDGETS = /\/accounts\/([^/]+)\/challenges\/widgets(?:\/([^/]+))?$/;
const SITEVERIFY = /\/turnstile\/v0\/siteverify$/;

const envelope = (result: unknown, status = 200, errors: unknown[] = [], headers = {}) =>
  Response.json({ success: status < 300, errors, messages: [], result }, { status, headers });
const cfError = (status: number, code: number, message: string, headers = {}) =>
  envelope(null, status, [{ code, message }], headers);

function randomKey(prefix: string): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  return prefix + Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

async function readBody(req: Request): Promise<Record<string, unknown> | null> {
  const type = req.headers.get("content-type") ?? "";
  const text = await req.text();
  if (!text) return null;
  try {
    if (type.includes("application/json")) return JSON.parse(text);
    return Object.fromEntries(new URLSearchParams(text));
  } catch {
    return null;
  }
}

/**
 * Creates the fake. Defaults: account `acc-1` and token `tok-ok` (Turnstile permission on it),
 * token `tok-noperm` (same account, no Turnstile permission).
 */
export function fakeTurnstile(
  opts: { tokens?: Record<string, FakeToken>; accounts?: string[] } = {},
): FakeTurnstile {
  const tokens = new Map(Object.entries(
    opts.tokens ?? {
      "tok-ok": { accounts: ["acc-1"], turnstile: true },
      "tok-noperm": { accounts: ["acc-1"], turnstile: false },
    },
  ));
  const accounts = new Set(opts.accounts ?? ["acc-1"]);
  const widgets = new Map<string, FakeWidget>();
  const issued = new Map<string, { sitekey: string; hostname: string; action: string }>();
  const used = new Map<string, string | null>(); // token -> idempotency key of its first check
  const failures: Record<string, FakeFailure[]> = { widgets: [], siteverify: [] };
  const log: FakeTurnstileCall[] = [];

  const fake: FakeTurnstile = {
    widgets,
    tokens,
    accounts,
    log,
    hangMs: 600,
    fail(kind, failure, times = 1) {
      for (let i = 0; i < times; i++) failures[kind].push(failure);
    },
    solve(sitekey, hostname, action = "") {
      const t = randomKey("XXXX.DUMMY.TOKEN.");
      issued.set(t, { sitekey, hostname, action });
      return t;
    },
    verifies: () => log.filter((c) => c.kind === "siteverify"),
    handler: async (req) => {
      const path = new URL(req.url).pathname;
      const w = path.match(WIDGETS);
      const kind = w ? "widgets" : SITEVERIFY.test(path) ? "siteverify" : null;
      if (!kind) return null;
      const body = await readBody(req);
      log.push({
        kind,
        method: req.method,
        path,
        authorization: req.headers.get("authorization"),
        contentType: req.headers.get("content-type"),
        body,
      });
      const failure = failures[kind].shift();
      if (failure) {
        const out = await failed(failure, kind, fake.hangMs);
        if (out) return out;
      }
      return kind === "widgets"
        ? widgetApi(req, decodeURIComponent(w![1]), w![2] && decodeURIComponent(w![2]), body)
        : verify(body);
    },
  };

  function widgetApi(
    req: Request,
    accountId: string,
    sitekey: string | undefined,
    body: Record<string, unknown> | null,
  ): Response {
    const bearer = req.headers.get("authorization")?.replace(/^Bearer /, "") ?? "";
    const tok = tokens.get(bearer);
    if (!tok) return cfError(401, 1000, "Invalid API Token");
    if (!accounts.has(accountId)) {
      return cfError(404, 7003, `Could not route to /accounts/${accountId}/challenges/widgets`);
    }
    if (!tok.accounts.includes(accountId) || !tok.turnstile) {
      return cfError(403, 10000, "Authentication error");
    }
    if (req.method === "POST" && !sitekey) {
      const name = body?.name, domains = body?.domains, mode = body?.mode;
      if (typeof name !== "string" || !name || name.length > 254) {
        return cfError(400, 10400, "name: must be 1 to 254 characters");
      }
      if (!Array.isArray(domains) || !domains.length || domains.length > 10) {
        return cfError(400, 10400, "domains: 1 to 10 hostnames");
      }
      if (!["managed", "non-interactive", "invisible"].includes(String(mode))) {
        return cfError(400, 10400, "mode: must be managed, non-interactive or invisible");
      }
      const widget: FakeWidget = {
        sitekey: randomKey("0x4AAAAAAA"),
        secret: randomKey("0x4AAAAAAA-secret-"),
        accountId,
        name,
        domains: domains.map(String),
        mode: String(mode),
      };
      widgets.set(widget.sitekey, widget);
      return envelope({
        ...widget,
        accountId: undefined,
        bot_fight_mode: false,
        clearance_level: "no_clearance",
        region: "world",
        offlabel: false,
        created_on: "2026-01-01T00:00:00Z",
        modified_on: "2026-01-01T00:00:00Z",
      });
    }
    if (req.method === "DELETE" && sitekey) {
      const widget = widgets.get(sitekey);
      if (!widget || widget.accountId !== accountId) {
        return cfError(404, 10404, "widget not found");
      }
      widgets.delete(sitekey);
      const { secret: _secret, ...shown } = widget;
      return envelope(shown);
    }
    return cfError(405, 10405, "method not allowed");
  }

  function verify(body: Record<string, unknown> | null): Response {
    const answer = (codes: string[], extra: Record<string, unknown> = {}) =>
      Response.json({ success: codes.length === 0, "error-codes": codes, ...extra });
    if (!body) return answer(["bad-request"]);
    const secret = typeof body.secret === "string" ? body.secret : "";
    const response = typeof body.response === "string" ? body.response : "";
    const idem = typeof body.idempotency_key === "string" ? body.idempotency_key : null;
    if (!secret) return answer(["missing-input-secret"]);
    const widget = [...widgets.values()].find((w) => w.secret === secret);
    if (!widget) return answer(["invalid-input-secret"]);
    if (!response) return answer(["missing-input-response"]);
    const t = issued.get(response);
    if (!t || t.sitekey !== widget.sitekey) return answer(["invalid-input-response"]);
    if (used.has(response) && (idem === null || used.get(response) !== idem)) {
      return answer(["timeout-or-duplicate"]);
    }
    used.set(response, idem);
    return answer([], {
      challenge_ts: "2026-01-01T00:00:00.000Z",
      hostname: t.hostname,
      action: t.action,
      cdata: "",
    });
  }

  return fake;
}

async function failed(f: FakeFailure, kind: string, hangMs: number): Promise<Response | null> {
  switch (f) {
    case "rate_limited":
      return kind === "widgets"
        ? cfError(429, 971, "Please wait and consider throttling your request speed", {
          "retry-after": "42",
        })
        : new Response("rate limited", { status: 429, headers: { "retry-after": "42" } });
    case "unavailable":
      return new Response("upstream unavailable", { status: 503 });
    case "hang":
      await new Promise((r) => setTimeout(r, hangMs));
      return new Response("too late", { status: 504 });
    case "internal-error":
      return Response.json({ success: false, "error-codes": ["internal-error"] });
    case "garbage":
      return new Response("<html>oops</html>", { status: 200 });
  }
  return null;
}
