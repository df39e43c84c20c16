/**
 * `deno task demo`: a waiting room with a line to look at, in one command. It serves Tollgate
 * over an in-memory store (nothing is written to ./data), pauses the `default` queue and puts
 * demo visitors in it (they keep checking in, so the line stays), then prints what to open and
 * how to let people in. Stop it with Ctrl-C; nothing is kept.
 *
 * Flags: `--people=N` (default 40) demo visitors in line; `--port=P` (default PORT or 8000).
 */
import { createApp } from "../app.ts";
import { cryptoRandom, systemClock } from "../lib/clock.ts";
import { ConfigError, parseEnv } from "../lib/config.ts";
import { b64url } from "../lib/tokens.ts";

const args = Object.fromEntries(
  Deno.args.map((a) => a.replace(/^--/, "").split("=")).map(([k, v]) => [k, v ?? "true"]),
);
const people = Math.max(1, Math.min(1000, Number(args.people ?? 40) || 40));
const Q = "default";

let env;
try {
  env = parseEnv({
    ...Deno.env.toObject(),
    DENO_KV_PATH: ":memory:",
    QUEUES: Q,
    ...(args.port ? { PORT: String(args.port) } : {}),
  });
} catch (e) {
  if (e instanceof ConfigError) {
    console.error(`tollgate demo: ${e.message}`);
    Deno.exit(1);
  }
  throw e;
}
// A secret for this run only (the store is in memory, so nothing outlives it).
const config = { ...env, TOKEN_SECRET: b64url(crypto.getRandomValues(new Uint8Array(32))) };
const kv = await Deno.openKv(":memory:");
const { fetch: serve, services } = await createApp({
  kv,
  clock: systemClock,
  config,
  fetch: globalThis.fetch,
  random: cryptoRandom,
});
const base = `http://localhost:${config.PORT}`;
const operator = { authorization: `Bearer ${config.TOKEN_SECRET}` };

/** One call to this service (in-process, as the server would answer it). */
// The demo visitors come from one made-up address each, so the per-address limit on new
// places (meant for real floods) does not stop the demo at its 61st visitor.
const call = async (
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
  from = "127.0.0.1",
) =>
  await serve(
    new Request(base + path, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    }),
    {
      remoteAddr: { transport: "tcp", hostname: from, port: 40000 },
      completed: Promise.resolve(),
    } as Deno.ServeHandlerInfo,
  );
const addressOf = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${(i & 255) + 1}`;

await call("/pause", { queue: Q, paused: true }, operator);
// Once resumed, the line moves at a pace a person can watch.
await services.engine.setRate(Q, 1);
const visitors: { id: string; cookie: string; from: string }[] = [];
for (let i = 0; i < people; i++) {
  const res = await call("/join", { queue: Q }, {}, addressOf(i));
  const out = await res.json();
  const cookie = res.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  if (res.ok) visitors.push({ id: out.visitorId, cookie, from: addressOf(i) });
}
// Demo visitors check in like open pages do; without it the line would empty itself.
setInterval(() => {
  for (const v of visitors) {
    void call("/heartbeat", { queue: Q, visitorId: v.id }, { cookie: v.cookie }, v.from)
      .then((r) => r.body?.cancel()).catch(() => {});
  }
}, 15_000);
setInterval(() => void services.engine.maybeTick(Q), 1000);

Deno.serve({
  port: config.PORT,
  onListen: () => {
    const curl = `curl -s -X POST -H 'authorization: Bearer ${config.TOKEN_SECRET}' ` +
      `-H 'content-type: application/json'`;
    console.log(`
Tollgate demo: ${visitors.length} people wait in the paused queue "${Q}" (in memory only).

  Open ${base}/wait     you join the line behind them
  Resume admissions (one person a second from then on):
    ${curl} -d '{"queue":"${Q}","paused":false}' ${base}/pause
  Then let 10 more in at once:
    ${curl} -d '{"queue":"${Q}","count":10}' ${base}/admit
  Control room: ${base}/admin  (setup secret: ${config.TOKEN_SECRET})

Ctrl-C stops it; nothing is kept.`);
  },
}, serve);
