import { makeApp } from "./testing/app.ts";
import { jsonResponse } from "./http/response.ts";
import { assignRequestId } from "./lib/log.ts";
const t = await makeApp({ QUEUES: ["default"] });
await t.engine.setRate("default", 0.01);
for (let i = 0; i < 200; i++) await t.engine.join("default", null);
const j = await t.app.request("/join", { method: "POST", headers: { "content-type": "application/json" }, body: '{"queue":"default"}' });
let cookie = j.headers.getSetCookie()[0].split(";")[0];
const s1 = await t.app.request("/status?queue=default", { headers: { cookie } });
const c2 = s1.headers.getSetCookie()[0]; if (c2) cookie = c2.split(";")[0];
console.log("status", s1.status, await s1.text());
const req = () => new Request("http://localhost/status?queue=default", { headers: { cookie } });
const N = 100000;
const info = { remoteAddr: { transport: "tcp", hostname: "127.0.0.1", port: 4000 }, completed: Promise.resolve() } as unknown as Deno.ServeHandlerInfo;
// warm
for (let i = 0; i < 20000; i++) { const r = t.fetch(req(), info); if (r instanceof Promise) await r; }
let t0 = performance.now();
for (let i = 0; i < N; i++) { const r = t.fetch(req(), info); if (r instanceof Promise) await r; }
const ours = (performance.now() - t0) * 1000 / N;
const TICKET = /(?:^|;\s*)tg_ticket=([^;]*)/;
const floor = (rq: Request) => { const id = assignRequestId(rq); const ticket = TICKET.exec(rq.headers.get("cookie") ?? "")?.[1] ?? ""; const res = jsonResponse({ queue: "default", visitorId: ticket.slice(0, 31), status: "waiting", admissionMode: "queue", nextCheckAt: 1795616394000, nextPollAfterMs: 36487, estimatedWaitSeconds: 91170, position: 50650 }, 200); res.headers.set("X-Request-Id", id); return res; };
for (let i = 0; i < 20000; i++) floor(req());
t0 = performance.now();
for (let i = 0; i < N; i++) floor(req());
const fl = (performance.now() - t0) * 1000 / N;
t0 = performance.now();
for (let i = 0; i < N; i++) req();
const mk = (performance.now() - t0) * 1000 / N;
console.log(`ours ${ours.toFixed(2)} us, floor ${fl.toFixed(2)} us, request alloc ${mk.toFixed(2)} us`);
t.close();
