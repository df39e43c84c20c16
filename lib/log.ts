/**
 * Structured logs: one JSON object per line (`ts`, `level`, `msg`, then fields), errors and
 * warnings on stderr, the rest on stdout. Each request gets an id (a valid incoming
 * `X-Request-Id` from the proxy in front, else a fresh one) that its log lines carry and its
 * response returns, so a visitor's report can be matched to the server's lines.
 */

/** Log levels, in order. */
export type Level = "debug" | "info" | "warn" | "error";

/** Writes one log line. Never pass secrets, tokens or full URLs with query strings. */
export function log(level: Level, msg: string, fields: Record<string, unknown> = {}): void {
  const line = JSON.stringify({ ts: new Date().toISOString(), level, msg, ...fields });
  if (level === "error" || level === "warn") console.error(line);
  else console.log(line);
}

const LEVELS: readonly string[] = ["debug", "info", "warn", "error"];

/**
 * Writes a line a component built itself (the JSON text of `{level, msg, ...fields}`, what the
 * injectable loggers of the webhook sender and the health prober take) as `log` writes one: with
 * `ts` first, and a warning or an error on stderr. They were printed as built, without `ts` (and
 * the prober's warnings on stdout), unlike what docs/deploy.md promises of every line.
 */
export function logLine(line: string): void {
  let o: unknown;
  try {
    o = JSON.parse(line);
  } catch {
    o = null;
  }
  if (typeof o !== "object" || o === null || Array.isArray(o)) return log("info", line);
  const { level, msg, ts: _ts, ...fields } = o as Record<string, unknown>;
  const lv = typeof level === "string" && LEVELS.includes(level) ? level as Level : "info";
  log(lv, typeof msg === "string" ? msg : "", fields);
}

/** What an incoming `X-Request-Id` may look like to be kept (else a fresh id is made). */
export const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{8,128}$/;
/**
 * Where a request keeps its id: a property under a private symbol, not a WeakMap (a WeakMap entry
 * per request made most of the join path's garbage: its table grew and was rebuilt between
 * collections, and the entries outlived young-generation collections).
 */
const ID = Symbol("tollgate.requestId");
type WithId = Request & { [ID]?: string };

/**
 * Fresh request ids: UUID-shaped (version 4 layout), a random 74-bit prefix drawn once per process
 * and a 48-bit counter, so ids are unique across instances without a random draw per request.
 * (The counter shows how many requests an instance has served; ids are not secrets.)
 */
export class RequestIds {
  #prefix: string;
  #n = 0;
  constructor(random: Uint8Array = crypto.getRandomValues(new Uint8Array(10))) {
    const h = [...random.subarray(0, 10)].map((b) => b.toString(16).padStart(2, "0")).join("");
    const variant = "89ab"[random[9] & 3];
    this.#prefix = `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(12, 15)}-${variant}${
      h.slice(15, 18)
    }-`;
  }

  /** The next id. */
  next(): string {
    this.#n = (this.#n + 1) % 0x1000000000000;
    return this.#prefix + this.#n.toString(16).padStart(12, "0");
  }
}

const fresh = new RequestIds();

/** Gives `req` its request id: the incoming header when well-formed, else a fresh one. */
export function assignRequestId(req: Request, from?: Request): string {
  const given = (from && (from as WithId)[ID]) ?? req.headers.get("x-request-id");
  const id = given && REQUEST_ID_RE.test(given) ? given : fresh.next();
  (req as WithId)[ID] = id;
  return id;
}

/** The id `assignRequestId` gave this request, if any. */
export function requestIdOf(req: Request): string | undefined {
  return (req as WithId)[ID];
}
