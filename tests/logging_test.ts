import { assert, assertEquals } from "./assert.ts";
import { Client, makeApp } from "./helpers.ts";
import { logLine, REQUEST_ID_RE, RequestIds } from "../lib/log.ts";
import { createWebhooks } from "../lib/webhooks.ts";
import { keys } from "../lib/store/keys.ts";

/** Runs `fn` with console.log/error captured; returns the parsed JSON lines. */
async function captured(fn: () => Promise<void>): Promise<Record<string, unknown>[]> {
  const lines: string[] = [];
  const [log, error] = [console.log, console.error];
  console.log = (l: unknown) => void lines.push(String(l));
  console.error = (l: unknown) => void lines.push(String(l));
  try {
    await fn();
  } finally {
    [console.log, console.error] = [log, error];
  }
  return lines.flatMap((l) => {
    try {
      return [JSON.parse(l)];
    } catch {
      return [];
    }
  });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

Deno.test("logs: every served answer has a request id; a well-formed incoming one is kept", async () => {
  const t = await makeApp();
  const own = await t.fetch(new Request("http://localhost/health"));
  await own.body?.cancel();
  assert(UUID.test(own.headers.get("x-request-id") ?? ""), "a fresh id");
  const join = await t.fetch(
    new Request("http://localhost/join", {
      method: "POST",
      headers: { "content-type": "application/json", "x-request-id": "edge-req-12345" },
      body: JSON.stringify({ queue: "default" }),
    }),
  );
  await join.body?.cancel();
  assertEquals(join.headers.get("x-request-id"), "edge-req-12345", "the fast path keeps it");
  const odd = await t.fetch(
    new Request("http://localhost/health", { headers: { "x-request-id": "bad id <script>" } }),
  );
  await odd.body?.cancel();
  assert(UUID.test(odd.headers.get("x-request-id") ?? ""), "a malformed one is replaced");
  t.close();
});

Deno.test("logs: LOG_REQUESTS writes one JSON line per request, without the query", async () => {
  const t = await makeApp({ LOG_REQUESTS: true });
  let id = "";
  const lines = await captured(async () => {
    const r = await t.fetch(new Request("http://localhost/verify?accessToken=secret-ish-token"));
    await r.body?.cancel();
    id = r.headers.get("x-request-id")!;
  });
  const access = lines.filter((l) => l.msg === "request");
  assertEquals(access.length, 1);
  assertEquals(
    [access[0].requestId, access[0].method, access[0].path, access[0].status, access[0].level],
    [id, "GET", "/verify", 401, "info"],
  );
  assert(typeof access[0].ts === "string" && typeof access[0].ms === "number");
  assert(!JSON.stringify(lines).includes("secret-ish-token"), "the query is never logged");
  const quiet = await makeApp();
  const none = await captured(async () => {
    await (await quiet.fetch(new Request("http://localhost/health"))).body?.cancel();
  });
  assertEquals(none.filter((l) => l.msg === "request"), [], "off by default");
  t.close();
  quiet.close();
});

Deno.test("logs: an unexpected error is a 500 envelope and an error line with the same request id", async () => {
  const t = await makeApp();
  t.close(); // every store call now fails
  let res: Response | null = null;
  const lines = await captured(async () => {
    res = await t.fetch(new Request("http://localhost/api/admin/bootstrap"));
  });
  const r = res! as Response;
  assertEquals(r.status, 500);
  assertEquals((await r.json()).error.code, "internal");
  const err = lines.find((l) => l.msg === "unhandled");
  assert(err, `an error line: ${JSON.stringify(lines)}`);
  assertEquals([err.level, err.requestId, err.path], [
    "error",
    r.headers.get("x-request-id"),
    "/api/admin/bootstrap",
  ]);
});

Deno.test("logs: fresh request ids are UUID-shaped, distinct, and differ between processes", () => {
  const a = new RequestIds(new Uint8Array(10).fill(7));
  const b = new RequestIds(new Uint8Array(10).fill(9));
  const seen = new Set<string>();
  for (let i = 0; i < 10_000; i++) {
    const id = a.next();
    assert(UUID.test(id), `UUID-shaped: ${id}`);
    assert(REQUEST_ID_RE.test(id), "accepted back as an incoming id");
    seen.add(id);
  }
  assertEquals(seen.size, 10_000, "no repeats within a process");
  assert(!seen.has(b.next()), "another process's prefix differs");
  assertEquals(a.next().slice(-12), (10_001).toString(16).padStart(12, "0"), "a counter");
});

Deno.test("logs: the webhook sender's and the origin proxy's lines carry ts, warnings on stderr", async () => {
  const streams: { stream: string; line: Record<string, unknown> }[] = [];
  const [log, error] = [console.log, console.error];
  console.log = (l: unknown) => void streams.push({ stream: "out", line: JSON.parse(String(l)) });
  console.error = (l: unknown) => void streams.push({ stream: "err", line: JSON.parse(String(l)) });
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close(); // nothing listens there now
  const t = await makeApp({ ORIGIN_URL: `http://127.0.0.1:${port}` });
  try {
    // Default loggers: the sender built without `log` (what app.ts wires), the origin proxy.
    await t.kv.set(keys.webhooks(), {
      enabled: true,
      url: `https://127.0.0.1:${port}/h`,
      events: ["pause"],
    });
    const hooks = createWebhooks({ kv: t.kv, clock: t.clock, fetch, config: t.config });
    await hooks.deliverTest("default", { test: true });
    // An admitted visitor's request goes to the origin, which is down.
    const visitor = new Client(t.app);
    assertEquals((await visitor.join()).status, 200);
    assertEquals((await visitor.req("GET", "/shop")).status, 502);
  } finally {
    [console.log, console.error] = [log, error];
    t.close();
  }
  const msgs = streams.map((s) => s.line.msg);
  assert(msgs.includes("webhook not delivered"), JSON.stringify(msgs));
  assert(msgs.includes("origin unavailable"), JSON.stringify(msgs));
  for (const { stream, line } of streams) {
    assert(
      typeof line.ts === "string" && !isNaN(Date.parse(line.ts)),
      `no ts: ${JSON.stringify(line)}`,
    );
    assertEquals(Object.keys(line).slice(0, 3), ["ts", "level", "msg"]);
    if (line.level === "warn" || line.level === "error") {
      assertEquals(stream, "err", String(line.msg));
    }
  }
  assertEquals(logLineLevels(), ["warn", "info", "info"]);
});

/** `logLine` keeps a known level, and makes anything else an info line with its text as msg. */
function logLineLevels(): string[] {
  const out: string[] = [];
  const [log, error] = [console.log, console.error];
  console.log = (l: unknown) => void out.push(JSON.parse(String(l)).level);
  console.error = (l: unknown) => void out.push(JSON.parse(String(l)).level);
  try {
    logLine(JSON.stringify({ level: "warn", msg: "m", host: "h" }));
    logLine(JSON.stringify({ level: "loud", msg: "m" }));
    logLine("not json");
  } finally {
    [console.log, console.error] = [log, error];
  }
  return out;
}

Deno.test("logs: no structured line bypasses lib/log.ts (a logger defaulting to console, a JSON print)", async () => {
  const bad: string[] = [];
  const walk = async (dir: URL): Promise<void> => {
    for await (const e of Deno.readDir(dir)) {
      const url = new URL(e.name + (e.isDirectory ? "/" : ""), dir);
      if (e.isDirectory) await walk(url);
      else if (/\.tsx?$/.test(e.name) && e.name !== "log.ts") {
        const text = await Deno.readTextFile(url);
        const hit =
          /=\s*console\.(log|warn|error)\b|=>\s*console\.(log|warn|error)\(line\)|console\.(log|warn|error)\(\s*JSON\.stringify\(/
            .exec(text);
        if (hit) bad.push(`${url.pathname.split("/").slice(-2).join("/")}: ${hit[0]}`);
      }
    }
  };
  for (const d of ["lib/", "routes/", "http/"]) await walk(new URL(`../${d}`, import.meta.url));
  assertEquals(bad, []);
});
