/**
 * Fuzzing every operation of the generated OpenAPI contract (public, operator and admin) through
 * the service's real `fetch` (fast paths included): wrong types, huge bodies, deep nesting, bad
 * UTF-8, odd headers and cookies. Over 10,000 requests: no 5xx, every JSON error in the envelope,
 * bodies over the limit refused with 413, and the store unchanged.
 *
 * Phase 1 sends junk without credentials (or with junk credentials) to every operation. Phase 2
 * signs in (admin session, operator bearer) and sends invalid bodies to every operation that has
 * a required body field, so validation itself is what is fuzzed.
 */
import { seededRandom } from "../lib/clock.ts";
import { MAX_BODY_BYTES } from "../lib/names.ts";
import { openApiDocument } from "../app.ts";
import { adminClient } from "./admin_helpers.ts";
import { assert, assertEquals } from "./assert.ts";
import { fakeCloudflare } from "./fakes/cloudflare.ts";
import { serveFakes } from "./fakes/serve.ts";
import { fakeTurnstile } from "./fakes/turnstile.ts";
import { Client, makeApp, type TestApp } from "./helpers.ts";

const SEED = Number(Deno.env.get("FUZZ_SEED") ?? 20261123);
const rnd = seededRandom(SEED);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd.float() * xs.length)];
const int = (n: number) => Math.floor(rnd.float() * n);

interface Op {
  method: string;
  path: string;
  /** Required top-level body fields with their JSON schema types. */
  required: { name: string; type: string | undefined }[];
  hasBody: boolean;
}

// deno-lint-ignore no-explicit-any
type Json = any;

function operations(doc: Json): Op[] {
  const ops: Op[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const method of ["get", "post", "put", "delete", "patch"]) {
      const op = item[method];
      if (!op) continue;
      const schema = op.requestBody?.content?.["application/json"]?.schema;
      const resolved = schema?.$ref ? doc.components.schemas[schema.$ref.split("/").pop()] : schema;
      const required = (resolved?.required ?? []).map((name: string) => ({
        name,
        type: resolved.properties?.[name]?.type,
      }));
      ops.push({ method: method.toUpperCase(), path, required, hasBody: Boolean(schema) });
    }
  }
  return ops;
}

const ODD_STRINGS = [
  "",
  " ",
  "null",
  "%00",
  "../../etc/passwd",
  "\u0000\u0001",
  "\ud800",
  "😀".repeat(50),
  "<script>alert(1)</script>",
  "a".repeat(5000),
  "' OR 1=1 --",
  "-1",
  "1e309",
  "__proto__",
];
const ODD_VALUES: Json[] = [
  null,
  true,
  0,
  -1,
  1.5,
  1e308,
  -0,
  Number.MAX_SAFE_INTEGER + 2,
  "",
  "x",
  [],
  [1, 2],
  {},
  { __proto__: { admin: true } },
  { constructor: { prototype: { x: 1 } } },
  ...ODD_STRINGS,
];

function deep(n: number): string {
  return "[".repeat(n) + "]".repeat(n);
}

/** A body (string or bytes) that is not valid input for an operation with required fields. */
function badBody(op: Op): BodyInit {
  switch (int(9)) {
    case 0:
      return JSON.stringify(pick(ODD_VALUES));
    case 1:
      return deep(1 + int(20_000));
    case 2:
      return new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0xc3, 0x28, 0x7d]); // bad UTF-8
    case 3:
      return "{" + '"a":1,'.repeat(int(2000)); // truncated JSON
    case 4: {
      // Every required field present but one of wrong type.
      const body: Json = {};
      for (const f of op.required) body[f.name] = wrongFor(f.type);
      return JSON.stringify(body);
    }
    case 5: {
      // One required field missing, the rest odd.
      const body: Json = {};
      for (const f of op.required.slice(1)) body[f.name] = pick(ODD_VALUES);
      return JSON.stringify(body);
    }
    case 6:
      return JSON.stringify({ nested: JSON.parse(deep(500)) });
    case 7:
      return "x".repeat(MAX_BODY_BYTES + 1 + int(10_000)); // over the limit: 413
    default:
      return JSON.stringify(Object.fromEntries(op.required.map((f) => [f.name, odd(f.type)])));
  }
}

function wrongFor(type: string | undefined): Json {
  if (type === "string") return pick([1, true, null, [], {}, ["a"]]);
  if (type === "number" || type === "integer") return pick(["1", true, null, [], {}, "NaN"]);
  if (type === "boolean") return pick(["true", 1, 0, null, [], {}]);
  if (type === "array") return pick(["a", 1, {}, null]);
  return pick([null, 1, "s", []]);
}

/** Right type, odd value: outside bounds, wrong format, or a hostile string. */
function odd(type: string | undefined): Json {
  if (type === "string") return pick(ODD_STRINGS);
  if (type === "number" || type === "integer") return pick([-1, 0, 1e15, 1.5, -1e15]);
  if (type === "array") return pick([[], Array(5000).fill("x"), [null], [[[]]]]);
  return pick(ODD_VALUES);
}

function oddHeaders(): Record<string, string> {
  const h: Record<string, string> = {};
  const cookies = [
    "tg_ticket=garbage",
    "tg_ticket=" + "A".repeat(3000) + ".x",
    "tg_admin=" + "z".repeat(43),
    "tg_access=e30.e30",
    "tg_ticket=%ZZ",
    "tg_ticket=eyJzdWIiOiJ4In0.sig; tg_ticket=dup",
    "=; ;;",
    "tg_ticket=\xc3\x28", // raw bytes: bad UTF-8
  ];
  if (rnd.float() < 0.5) h["cookie"] = pick(cookies);
  if (rnd.float() < 0.4) {
    h["authorization"] = pick([
      "Bearer ",
      "Bearer wrong",
      "Basic Zm9vOmJhcg==",
      "bearer " + "x".repeat(4000),
    ]);
  }
  if (rnd.float() < 0.3) h["x-service-operator"] = pick(["", "nope", "x".repeat(100)]);
  if (rnd.float() < 0.3) {
    h["content-type"] = pick([
      "text/plain",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "application/json; charset=latin1",
      "application/json",
    ]);
  }
  if (rnd.float() < 0.3) h["cf-ipcountry"] = pick(["", "ZZZ", "..", "\xff\xfe"]); // raw bytes: bad UTF-8
  if (rnd.float() < 0.3) h["x-forwarded-for"] = pick(["1.2.3.4, ::1", "not-an-ip", "999.1.1.1"]);
  if (rnd.float() < 0.3) h["origin"] = pick(["null", "http://evil.example", "http://localhost"]);
  if (rnd.float() < 0.2) h["accept"] = pick(["text/html", "*/*", "application/json"]);
  return h;
}

/** Percent-encodes; a lone surrogate becomes the raw (invalid UTF-8) bytes of one. */
function enc(v: string): string {
  try {
    return encodeURIComponent(v);
  } catch {
    return "%ED%A0%80";
  }
}

function fillPath(path: string): string {
  return path.replace(
    /\{[^}]+\}/g,
    () => enc(pick(["x", "..", "%00", "a".repeat(300), "😀", "-1"])),
  );
}

function oddQuery(): string {
  if (rnd.float() < 0.5) return "";
  const k = pick([
    "queue",
    "visitorId",
    "format",
    "refresh",
    "return",
    "embed",
    "accessToken",
    "x",
  ]);
  return `?${k}=${enc(pick(ODD_STRINGS))}` + (rnd.float() < 0.3 ? `&${k}=dup` : "");
}

/**
 * A visit to the waiting page joins the line by design (the no-JavaScript flow), whatever else the
 * request carries: only the line may change there.
 */
const JOINS_BY_DESIGN = new Set(["GET /wait"]);
// 0.8: a join writes an arrival entry ("na") and the `arrivalsPending` sum; a leave before the
// sequencer numbers it writes a note ("nl"): all the line's records.
const LINE_PREFIXES = new Set(["v", "w", "d", "x", "g", "counts", "na", "nl", "arrivalsPending"]);

/** A snapshot's lines outside the queue's line records. */
function outsideLine(snap: string): string {
  return snap.split("\n").filter((l) => !LINE_PREFIXES.has(JSON.parse(l)[0][0])).join("\n");
}

/** The lines only one snapshot has. */
function diff(a: string, b: string): string {
  const [x, y] = [new Set(a.split("\n")), new Set(b.split("\n"))];
  const gone = [...x].filter((l) => !y.has(l)).map((l) => "- " + l);
  return [...gone, ...[...y].filter((l) => !x.has(l)).map((l) => "+ " + l)].join("\n");
}

/** The store without what may change on any request: rate-limit counters, session touch times. */
async function snapshot(kv: Deno.Kv): Promise<string> {
  const skip = new Set(["ratelimit", "ts", "t"]);
  const out: string[] = [];
  for await (const e of kv.list({ prefix: [] })) {
    if (skip.has(e.key[0] as string)) continue;
    if (e.key[0] === "admin" && e.key[1] === "session") {
      const { lastSeenAt: _, ...rest } = e.value as Record<string, unknown>;
      out.push(JSON.stringify([e.key, rest]));
      continue;
    }
    out.push(JSON.stringify([e.key, e.value], (_k, v) => typeof v === "bigint" ? String(v) : v));
  }
  return out.join("\n");
}

async function send(t: TestApp, op: Op, init: {
  body?: BodyInit;
  headers: Record<string, string>;
}) {
  const url = "http://localhost" + fillPath(op.path) + oddQuery();
  const res = await t.fetch(new Request(url, { method: op.method, ...init }));
  const text = await res.text();
  const what = `${op.method} ${op.path} -> ${res.status} (seed ${SEED})`;
  assert(res.status < 500, `${what}: ${text.slice(0, 300)}`);
  if (res.status >= 400 && (res.headers.get("content-type") ?? "").includes("json")) {
    const j = JSON.parse(text);
    assert(
      typeof j?.error?.code === "string" && typeof j.error.message === "string" &&
        typeof j.error.details === "object",
      `${what}: not the envelope: ${text.slice(0, 300)}`,
    );
  }
  return res.status;
}

Deno.test("fuzz: 10,000+ hostile requests over every operation; no 5xx, envelope, no state change", async () => {
  // Provider calls that valid-by-chance input reaches go to fakes on loopback, never outside.
  const providers = serveFakes(fakeCloudflare().handler, fakeTurnstile().handler);
  const t = await makeApp({
    CLOUDFLARE_API_BASE: `${providers.url}/client/v4`,
    TURNSTILE_SITEVERIFY_URL: `${providers.url}/turnstile/v0/siteverify`,
  });
  const { client } = await adminClient(t);
  await new Client(t.app).join("default", "fuzz-resident-1");
  assertEquals(
    (await client.req("PUT", "/api/admin/branding", { title: "Before fuzz" })).status,
    200,
  );
  const ops = operations(openApiDocument(t.hono));
  assert(ops.length > 40, `the contract lists the operations (${ops.length})`);
  let before = await snapshot(t.kv);
  let sent = 0;
  const statuses = new Map<number, number>();
  const count = (s: number) => statuses.set(s, (statuses.get(s) ?? 0) + 1);

  // Phase 1: no (or junk) credentials, junk everything, every operation.
  while (sent < 7000) {
    const op = ops[sent % ops.length];
    const headers = oddHeaders();
    delete headers["origin"];
    if (headers["authorization"]?.includes(t.config.TOKEN_SECRET)) delete headers["authorization"];
    const body = op.method === "GET"
      ? undefined
      : op.hasBody
      ? badBody(op)
      : pick(["", "{}", deep(50)]);
    const status = await send(t, op, { body, headers });
    count(status);
    sent++;
    const now = await snapshot(t.kv);
    if (JOINS_BY_DESIGN.has(`${op.method} ${op.path}`)) {
      assertEquals(
        outsideLine(now),
        outsideLine(before),
        `${op.method} ${op.path} changed settings`,
      );
      before = now;
    } else {
      assert(
        now === before,
        `${op.method} ${op.path} changed: ${diff(before, now)} (seed ${SEED})`,
      );
    }
    if (sent % 500 === 0) {
      assertEquals(await snapshot(t.kv), before, `state changed by phase 1 before ${sent}`);
    }
  }

  // Phase 2: signed in as admin and operator; invalid bodies to operations with required fields.
  const admin = {
    cookie: `tg_admin=${client.cookies.get("tg_admin")}`,
    origin: "http://localhost",
  };
  const withBody = ops.filter((o) => o.hasBody && o.required.length > 0);
  assert(withBody.length > 15, `operations with required body fields (${withBody.length})`);
  let p2 = 0;
  let valid = 0;
  let snap = await snapshot(t.kv);
  while (p2 < 3500) {
    const op = withBody[p2 % withBody.length];
    const body = badBody(op);
    const headers = {
      ...admin,
      authorization: `Bearer ${t.config.TOKEN_SECRET}`,
      "content-type": "application/json",
    };
    const status = await send(t, op, { body, headers });
    count(status);
    p2++;
    sent++;
    const what = `${op.method} ${op.path} ${String(body).slice(0, 200)} (seed ${SEED})`;
    if (typeof body === "string" && body.length > MAX_BODY_BYTES) {
      assertEquals(status, 413, `an oversized body is refused: ${what}`);
    }
    const now = await snapshot(t.kv);
    if (status < 300) {
      valid++; // the generator hit a valid input (`{"opensAt": null}` is one): it may act
      snap = now;
      continue;
    }
    assert(
      [400, 401, 403, 404, 409, 413, 415, 429].includes(status),
      `answered ${status}: ${what}`,
    );
    assert(now === snap, `refused input changed the store: ${what}: ${diff(snap, now)}`);
  }
  assert(valid < p2 / 20, `the generator makes invalid input (${valid} of ${p2} were valid)`);
  assert(sent >= 10_000, `sent ${sent}`);
  assert(
    (statuses.get(400) ?? 0) > 1000,
    `validation was reached: ${JSON.stringify([...statuses])}`,
  );
  assert((statuses.get(413) ?? 0) > 100, "oversized bodies were sent and refused");
  t.close();
  await providers.close();
});
