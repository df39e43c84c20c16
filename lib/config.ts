import { z } from "zod";
import { trustedProxiesProblem } from "./client_ip.ts";
import { MODES, QUEUE_NAME_RE } from "./names.ts";

// One message for a bad spelling and a value out of range, naming the range: "-1" was told it
// "must be a whole number", and "5" got zod's "Too small: expected number to be >=10".
const positiveInt = (min: number, max: number) => {
  const words = `must be a whole number from ${min} to ${max}`;
  return z.string().trim().regex(/^\d+$/, words).transform(Number).pipe(
    z.number().int().min(min, words).max(max, words),
  );
};

const RATE_WORDS = "must be a number from 0.1 to 100000";
const SPEED_WORDS = "must be a number from 0.1 to 1000";

/** An http(s) URL, with a message that says so ("Invalid URL" named neither). */
const httpUrl = () => z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" });

/** One of `values`, with a message that lists them. */
const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: `must be one of: ${values.join(", ")}` });

/** A switch: 0, 1, false or true. */
const flag = (dflt: "0" | "1") =>
  oneOf(["0", "1", "false", "true"] as const).default(dflt).transform((v) =>
    v === "1" || v === "true"
  );

const EnvSchema = z.object({
  PORT: positiveInt(0, 65535).default(8000),
  TOKEN_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  /** Read-only bearer credential of `GET /metrics` (for scrapers), accepted by no other endpoint. */
  METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").regex(
    /^[\x21-\x7e]+$/,
    "must be printable ASCII without spaces",
  ).optional(),
  DENO_KV_PATH: z.string().trim().min(1, "must be a file path, :memory: or an http(s):// URL")
    .default("./data/waiting-room.kv"),
  ADMISSION_MODE: oneOf(MODES).default("queue"),
  ADMIT_PER_SECOND: z.string().trim().regex(/^\d+(\.\d+)?$/, RATE_WORDS)
    .transform(Number).pipe(z.number().min(0.1, RATE_WORDS).max(100000, RATE_WORDS)).default(10),
  CAPACITY: positiveInt(1, 10_000_000).default(500),
  MAX_WAITING_VISITORS: positiveInt(1, 50_000_000).default(1_000_000),
  /** Default new places one client may take per minute in a new queue (0: no limit). */
  JOINS_PER_CLIENT_PER_MINUTE: positiveInt(0, 100_000).default(60),
  ACCESS_TOKEN_TTL_SECONDS: positiveInt(10, 86400 * 7).default(900),
  QUEUES: z.string().default("default").transform((
    s,
  ) => [...new Set(s.split(",").map((q) => q.trim()).filter(Boolean))]).pipe(
    z.array(z.string().regex(QUEUE_NAME_RE, "each name must match ^[a-z0-9][a-z0-9_-]{0,63}$")).min(
      1,
      "must name at least one queue",
    ),
  ),
  ORIGIN_URL: httpUrl().optional(),
  CLIENT_IP_HEADER: z.string().regex(/^[A-Za-z0-9-]+$/, "must be a header name").optional(),
  /**
   * Proxies whose forwarded headers are believed (comma-separated addresses or CIDR ranges):
   * `CLIENT_IP_HEADER`, `GEO_COUNTRY_HEADER` and `X-Forwarded-Proto` from any other peer are
   * ignored. Unset: those headers are believed from every peer (only safe when nothing but the
   * proxy can reach the port).
   */
  TRUSTED_PROXIES: z.string().refine((v) => trustedProxiesProblem(v) === null, {
    error: (i) => trustedProxiesProblem(String(i.input)) ?? "invalid",
  }).optional(),
  GEO_COUNTRY_HEADER: z.string().regex(/^[A-Za-z0-9-]+$/, "must be a header name").default(
    "cf-ipcountry",
  ),
  WAITING_ROOM_POLL_INTERVAL_MS: positiveInt(1000, 3_600_000).optional(),
  WAITING_ROOM_HEARTBEAT_INTERVAL_MS: positiveInt(1000, 3_600_000).optional(),
  /** Key of the enqueue tokens the operator's site signs (one place per person); none: not used. */
  ENQUEUE_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  /** Public base URL of the service (e.g. https://queue.example.com); admin writes must come from its origin. */
  PUBLIC_URL: httpUrl().optional(),
  /** Release feed for the update check: GitHub's "latest release" JSON shape ({tag_name, html_url}). */
  UPDATE_FEED_URL: httpUrl().default(
    "https://api.github.com/repos/tollgate-dev/tollgate/releases/latest",
  ),
  /** Cloudflare API v4 base (edge setup, edge controls, Turnstile widgets); tests point it at a fake. */
  CLOUDFLARE_API_BASE: httpUrl().default(
    "https://api.cloudflare.com/client/v4",
  ),
  /** Turnstile siteverify endpoint; tests point it at a fake. */
  TURNSTILE_SITEVERIFY_URL: httpUrl().default(
    "https://challenges.cloudflare.com/turnstile/v0/siteverify",
  ),
  /** Script of the bot-challenge widget the admin sign-in loads (Turnstile's api.js); tests use a fake. */
  TURNSTILE_SCRIPT_URL: httpUrl().default(
    "https://challenges.cloudflare.com/turnstile/v0/api.js",
  ),
  /** How long a client may take to send a whole request body (then 408 `request_timeout`). */
  BODY_TIMEOUT_MS: positiveInt(100, 120_000).default(5_000),
  /** Most open client connections (never above 3/4 of the descriptor limit; lib/http/serve.ts). */
  MAX_CONNECTIONS: positiveInt(16, 1_000_000).default(20_000),
  /** How long a new connection may take to send a complete request head (then closed). */
  HEADER_TIMEOUT_MS: positiveInt(100, 300_000).default(10_000),
  /** How long a keep-alive connection may sit idle after a response (then closed). */
  IDLE_TIMEOUT_MS: positiveInt(100, 3_600_000).default(75_000),
  /** Timeout of each call to the edge or challenge provider. */
  PROVIDER_TIMEOUT_MS: positiveInt(100, 120_000).default(10_000),
  /** One JSON access line per request (method, path without query, status, ms, request id). */
  LOG_REQUESTS: flag("0"),
  /**
   * Admin-configured targets (webhook, health probe, origin override) may be loopback, private
   * or unique-local addresses: a receiver or origin on the same host or LAN. Link-local and cloud
   * metadata addresses stay refused.
   */
  ALLOW_PRIVATE_TARGETS: flag("0"),
  TOLLGATE_ENV: oneOf(["development", "production", "test"]).default("development"),
  /**
   * Path prefix of Tollgate's own paths (e.g. `/_tollgate`): behind nginx, Caddy or Traefik the
   * site then keeps its own `/status`, `/static/…` and the rest; links and redirects follow it.
   */
  BASE_PATH: z.string().regex(
    /^(?:\/[A-Za-z0-9._~-]+)+$/,
    "must be a path like /_tollgate (leading slash, no trailing slash)",
  ).optional(),
  /**
   * Whether `/verify*` accepts `?accessToken=` beside the cookie and the Authorization header.
   * `0` makes the checks read only those two: a proxy that cannot strip the query would
   * otherwise hand the token to the site and its logs.
   */
  VERIFY_TOKEN_IN_QUERY: flag("1"),
  /**
   * While the store cannot be reached: `closed` (the waiting room answers 503, as always) or
   * `open` (the origin proxy and `/verify` let visitors without a token through, counted and
   * logged, for at most `STORE_FAILURE_OPEN_SECONDS`). See docs/deploy.md.
   */
  STORE_FAILURE: oneOf(["closed", "open"]).default("closed"),
  /** How long `STORE_FAILURE=open` may let visitors through, from the moment the store went down. */
  STORE_FAILURE_OPEN_SECONDS: positiveInt(10, 86_400).default(300),
  /**
   * Load testing only: the server's clock runs this many times as fast (0.1 to 1000), so a long
   * line's hours pass in minutes. Refused in production (every timeslot, token and hold would
   * run fast).
   */
  TOLLGATE_CLOCK_SPEED: z.string().trim().regex(/^\d+(\.\d+)?$/, SPEED_WORDS)
    .transform(Number).pipe(z.number().min(0.1, SPEED_WORDS).max(1000, SPEED_WORDS))
    .optional(),
  /**
   * SMTP server of the e-mail a visitor may ask for at its turn (lib/notify/); unset: the wait
   * page does not offer it. See docs/privacy.md.
   */
  SMTP_HOST: z.string().regex(/^[A-Za-z0-9.:\[\]-]+$/, "must be a host name or address").optional(),
  SMTP_PORT: positiveInt(1, 65535).default(587),
  /** `starttls` (upgrade required), `tls` (TLS from the start, port 465) or `none` (plain). */
  SMTP_TLS: oneOf(["starttls", "tls", "none"]).default("starttls"),
  SMTP_USER: z.string().optional(),
  SMTP_PASSWORD: z.string().optional(),
  /** The sender, e.g. `Waiting room <queue@example.com>`; without it no e-mail is offered. */
  SMTP_FROM: z.string().regex(/^[^\r\n]+@[^\r\n]+$/, "must be an address (with an optional name)")
    .optional(),
  /** Send the e-mail at this place in line (e.g. 10); 0 sends it at admission. */
  MAIL_AT_POSITION: positiveInt(0, 1_000_000).default(0),
});

/** Every configuration variable the service reads. */
export const CONFIG_KEYS = Object.keys(EnvSchema.shape) as (keyof typeof EnvSchema.shape)[];

/** The validated service configuration. */
export type Config = Omit<z.output<typeof EnvSchema>, "TOKEN_SECRET"> & { TOKEN_SECRET: string };

/** A configuration value failed validation; the message names the variable. */
export class ConfigError extends Error {}

/** Reads and validates the environment; throws `ConfigError` naming the first bad variable. */
export function parseEnv(
  env: Record<string, string | undefined>,
): z.output<typeof EnvSchema> {
  const clean: Record<string, string> = {};
  for (const key of Object.keys(EnvSchema.shape)) {
    const v = env[key];
    if (v !== undefined && v !== "") clean[key] = v;
  }
  const parsed = EnvSchema.safeParse(clean);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = String(issue.path[0] ?? "environment");
    const shown = SECRET_KEYS.has(name) ? "(hidden)" : JSON.stringify(clean[name] ?? "");
    throw new ConfigError(`invalid ${name}=${shown}: ${issue.message}`);
  }
  if (parsed.data.METRICS_TOKEN && parsed.data.METRICS_TOKEN === parsed.data.TOKEN_SECRET) {
    // A scraper holding it would hold the key that signs every token.
    throw new ConfigError("invalid METRICS_TOKEN=(hidden): must differ from TOKEN_SECRET");
  }
  return parsed.data;
}

/** Variables whose values never appear in an error message. */
const SECRET_KEYS = new Set(["TOKEN_SECRET", "ENQUEUE_SECRET", "METRICS_TOKEN", "SMTP_PASSWORD"]);

/** Builds a full config for tests: defaults, a fixed secret, and any overrides. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    ...parseEnv({}),
    TOKEN_SECRET: "test-secret-test-secret-test-secret-0123",
    DENO_KV_PATH: ":memory:",
    TOLLGATE_ENV: "test",
    // The fake receivers, origins and feeds of the tests listen on loopback.
    ALLOW_PRIVATE_TARGETS: true,
    // Tests of the per-client limit set it; the rest join thousands from one loopback address.
    JOINS_PER_CLIENT_PER_MINUTE: 0,
    ...overrides,
  };
}
