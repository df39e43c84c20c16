/**
 * Path rules of a queue: one ordered list (first match wins) that decides, for the origin proxy
 * and the forward-auth checks, whether a request is queued (needs an access token), bypassed
 * (assets, health checks, payment providers' webhooks: straight through), or routed to another
 * queue (its own line and tokens: several routes per room). A rule matches by path pattern,
 * file extension (assets), query parameter or client address. Pure: parsing, validation and
 * matching; lib/paths/store.ts keeps them.
 *
 * @example
 * const set = compileRules([{ match: "asset", pattern: "css,js,png", action: "bypass" }], "default");
 * matchRules(set, { path: "/app.css", query: "", ip: "203.0.113.9" }); // { action: "bypass", ... }
 */
import { BadRequestError } from "../errors.ts";
import { IpAllowlist, parseRange } from "../access/ip.ts";
import { normalizePath, routingPath } from "../origin/normalize_path.ts";
import { QUEUE_NAME_RE } from "../names.ts";

/** What a rule looks at. */
export const RULE_MATCHES = ["path", "asset", "query", "address"] as const;
/** What a rule does. */
export const RULE_ACTIONS = ["queue", "bypass", "route"] as const;

/** One rule as stored and as the admin API takes it. */
export interface PathRule {
  match: (typeof RULE_MATCHES)[number];
  /**
   * `path`: `/shop/*` (`*` within one segment, `**` across segments); `asset`: extensions
   * `css,js,png`; `query`: `name` or `name=value`; `address`: an IP address or CIDR range.
   */
  pattern: string;
  action: (typeof RULE_ACTIONS)[number];
  /** The queue a `route` rule sends to. */
  queue?: string;
  /** The operator's own words (why the rule is there). */
  note?: string;
}

/** Most rules one queue holds. */
export const MAX_RULES = 100;
/** Longest pattern. */
export const MAX_PATTERN = 300;

/** What a request is matched on. */
export interface RuleRequest {
  /** The URL path without the query, as received. */
  path: string;
  /** The query without `?` ("" when none). */
  query: string;
  /** The client address (under the trusted-proxy rule). */
  ip: string;
}

/** What the first matching rule says: its action, the queue it routes to, its index. */
export interface RuleHit {
  action: PathRule["action"];
  queue?: string;
  index: number;
}

type Test = (r: { paths: string[]; query: URLSearchParams; ip: string }) => boolean;

/** A queue's rules, compiled. */
export interface CompiledRules {
  rules: PathRule[];
  tests: Test[];
}

const PATH_CHARS = /^\/[A-Za-z0-9._~!$&'()+,;=:@%/*-]*$/;
const EXT = /^[A-Za-z0-9]{1,16}$/;
const QUERY_NAME = /^[A-Za-z0-9._~\[\]-]{1,100}$/;

/** The expression of a path pattern (anchored; `**` any text, `*` any text without `/`). */
export function pathPattern(pattern: string): RegExp {
  let re = "";
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === "*" && pattern[i + 1] === "*") {
      re += ".*";
      i++;
    } else if (ch === "*") re += "[^/]*";
    else re += ch.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

const extsOf = (p: string) => p.split(",").map((e) => e.trim().replace(/^\./, "").toLowerCase());

/** The test of one rule, or the problem with its pattern. */
function testOf(r: PathRule): Test | string {
  const p = r.pattern;
  if (p.length === 0 || p.length > MAX_PATTERN) return `1 to ${MAX_PATTERN} characters`;
  switch (r.match) {
    case "path": {
      if (!PATH_CHARS.test(p)) return `"${p}": a path starting with "/" (no query, no spaces)`;
      if (normalizePath(p.replaceAll("*", "x")) !== p.replaceAll("*", "x")) {
        return `"${p}": write the path without dot segments, repeated slashes or needless escapes`;
      }
      const re = pathPattern(p);
      // Every spelling must match: a bypass must not open `/static/..%2Fcheckout`.
      return ({ paths }) => paths.every((x) => re.test(x));
    }
    case "asset": {
      const exts = extsOf(p);
      const bad = exts.find((e) => !EXT.test(e));
      if (bad !== undefined) return `"${bad}": an extension is 1 to 16 letters or digits`;
      const set = new Set(exts);
      return ({ paths }) =>
        paths.every((x) => {
          const last = x.slice(x.lastIndexOf("/") + 1);
          const dot = last.lastIndexOf(".");
          return dot > 0 && set.has(last.slice(dot + 1).toLowerCase());
        });
    }
    case "query": {
      const eq = p.indexOf("=");
      const name = eq < 0 ? p : p.slice(0, eq);
      const value = eq < 0 ? null : p.slice(eq + 1);
      if (!QUERY_NAME.test(name)) return `"${p}": a parameter name, or name=value`;
      if (name === "accessToken") return `"${p}": accessToken is Tollgate's own parameter`;
      return ({ query }) => value === null ? query.has(name) : query.getAll(name).includes(value);
    }
    case "address": {
      const range = parseRange(p);
      if (typeof range === "string") return range;
      const list = new IpAllowlist([range]);
      return ({ ip }) => list.matches(ip);
    }
  }
}

/** Why rule `later` can never match after rule `earlier` (null when it can). */
function shadowedBy(earlier: PathRule, later: PathRule): boolean {
  if (earlier.match !== later.match) return false;
  const a = earlier.pattern, b = later.pattern;
  if (a === b) return true;
  switch (earlier.match) {
    case "path":
      if (!b.includes("*")) return pathPattern(a).test(b);
      // `/x/**` covers everything under `/x/`, wildcards or not.
      return a.endsWith("/**") && !a.slice(0, -3).includes("*") && b.startsWith(a.slice(0, -2));
    case "asset": {
      const has = new Set(extsOf(a));
      return extsOf(b).every((e) => has.has(e));
    }
    case "query":
      return !a.includes("=") && b.startsWith(`${a}=`);
    case "address":
      return !b.includes("/") && new IpAllowlist([parseRange(a) as never]).matches(b);
  }
}

/**
 * Validates and compiles `rules` of queue `own`; `queues` (when given) are the queues a `route`
 * rule may name. 400 `bad_request` naming every failing rule (`rules.N.field`) when any is
 * invalid, routes nowhere, or can never match because an earlier rule always matches first.
 */
export function compileRules(rules: PathRule[], own: string, queues?: string[]): CompiledRules {
  const fields: { path: string; message: string }[] = [];
  const bad = (i: number, f: string, m: string) =>
    fields.push({ path: `rules.${i}.${f}`, message: m });
  if (rules.length > MAX_RULES) fields.push({ path: "rules", message: `at most ${MAX_RULES}` });
  const tests: Test[] = [];
  rules.forEach((r, i) => {
    const t = testOf(r);
    if (typeof t === "string") bad(i, "pattern", t);
    else tests.push(t);
    if (r.action === "route") {
      if (!r.queue || !QUEUE_NAME_RE.test(r.queue)) bad(i, "queue", "a route rule names a queue");
      else if (r.queue === own) bad(i, "queue", `routes to its own queue "${own}"`);
      else if (queues && !queues.includes(r.queue)) bad(i, "queue", `no queue "${r.queue}"`);
    } else if (r.queue !== undefined) bad(i, "queue", `only a route rule names a queue`);
    if (typeof t === "string") return;
    for (let j = 0; j < i; j++) {
      if (typeof testOf(rules[j]) !== "string" && shadowedBy(rules[j], r)) {
        bad(i, "pattern", `never applies: rule ${j} ("${rules[j].pattern}") always matches first`);
        break;
      }
    }
  });
  if (fields.length > 0) {
    throw new BadRequestError(
      `path rules not changed: ${fields.map((f) => `${f.path}: ${f.message}`).join("; ")}`,
      { fields },
    );
  }
  return { rules, tests };
}

/** The first rule that matches `req`, or null (then the request is queued as before). */
export function matchRules(set: CompiledRules, req: RuleRequest): RuleHit | null {
  if (set.rules.length === 0) return null;
  const a = normalizePath(req.path);
  const b = routingPath(req.path);
  // A spelling that does not settle (escapes that keep decoding): no rule applies, it queues.
  if (b === null) return null;
  const input = {
    paths: a === b ? [a] : [a, b],
    query: new URLSearchParams(req.query),
    ip: req.ip,
  };
  for (let i = 0; i < set.tests.length; i++) {
    if (set.tests[i](input)) {
      const r = set.rules[i];
      return r.action === "route"
        ? { action: "route", queue: r.queue!, index: i }
        : { action: r.action, index: i };
    }
  }
  return null;
}

/** No rules. */
export const NO_RULES: CompiledRules = { rules: [], tests: [] };
