/**
 * The connection bookkeeping of the bounded server (lib/http/connections.ts) with a fake clock:
 * header and idle timeouts, shedding the connection that waited longest at the cap, refusing
 * when every connection is busy; and the descriptor arithmetic of lib/http/serve.ts.
 */
import { type CloseReason, ConnectionPool, type Slot } from "../lib/http/connections.ts";
import { connectionLimit, isDescriptorExhaustion, tcpServeAddress } from "../lib/http/serve.ts";
import { assert, assertEquals } from "./assert.ts";

function pool(max = 3) {
  let now = 0;
  const closed: CloseReason[] = [];
  const aborted: string[] = [];
  const p = new ConnectionPool(
    { maxConnections: max, headerTimeoutMs: 1000, idleTimeoutMs: 5000 },
    () => now,
    (r) => closed.push(r),
  );
  const open = (name: string) => p.admit(() => aborted.push(name));
  return { p, closed, aborted, open, advance: (ms: number) => now += ms };
}

Deno.test("pool: no request head within the header timeout, closed; a request in flight never", () => {
  const t = pool();
  const a = t.open("a")!, b = t.open("b")!;
  t.p.started(b);
  t.advance(999);
  assertEquals(t.p.sweep(), 0);
  t.advance(1);
  assertEquals(t.p.sweep(), 1);
  assertEquals([t.aborted, t.closed, a.closed, t.p.live], [["a"], ["header_timeout"], true, 1]);
  t.advance(60_000);
  assertEquals(t.p.sweep(), 0, "busy for a minute (a slow upload, a long poll): left alone");
});

Deno.test("pool: idle after its response, a keep-alive connection is closed after the idle timeout", () => {
  const t = pool();
  const a = t.open("a")!;
  t.p.started(a);
  t.p.started(a); // HTTP/2: two streams
  t.advance(500);
  t.p.ended(a);
  t.advance(10_000);
  assertEquals(t.p.sweep(), 0, "one stream still in flight");
  t.p.ended(a);
  t.advance(4999);
  assertEquals(t.p.sweep(), 0);
  t.p.started(a);
  t.p.ended(a); // a new request restarts the idle time
  t.advance(4999);
  assertEquals(t.p.sweep(), 0);
  t.advance(1);
  assertEquals([t.p.sweep(), t.closed], [1, ["idle_timeout"]]);
});

Deno.test("pool: at the cap the connection waiting longest goes; with all busy, the new one is refused", () => {
  const t = pool(3);
  const [a, b, c] = ["a", "b", "c"].map((n) => {
    t.advance(10);
    return t.open(n)!;
  });
  t.p.started(a);
  t.advance(10);
  t.p.ended(a); // a waits idle since now: b (no request yet) has waited longest
  const d = t.open("d")!;
  assertEquals([t.aborted, t.closed, b.closed], [["b"], ["cap"], true]);
  t.p.started(c);
  t.p.started(d);
  const e = t.open("e")!;
  assertEquals(t.aborted, ["b", "a"], "then the idle one; the busy ones stay");
  t.p.started(e);
  // Every connection busy: the newcomer is refused, nobody is cut off mid-request.
  assertEquals(t.open("f"), null);
  assertEquals([t.closed.at(-1), t.p.live], ["refused", 3]);
  for (const s of [c, d, e]) assert(!s.closed);
});

Deno.test("pool: a connection closed by the client frees its place", () => {
  const t = pool(1);
  const a = t.open("a")!;
  t.p.gone(a);
  assertEquals(t.p.live, 0);
  assert(t.open("b") !== null);
  assertEquals(t.closed, []);
});

Deno.test("descriptors: the cap stays at three quarters of the limit; EMFILE and ENFILE are exhaustion", () => {
  assertEquals(connectionLimit(20_000, 256), 192);
  assertEquals(connectionLimit(20_000, 1_048_576), 20_000);
  assertEquals(connectionLimit(500, null), 500);
  assertEquals(connectionLimit(20_000, 8), 16);
  assert(isDescriptorExhaustion(new Error("Too many open files (os error 24)")));
  assert(isDescriptorExhaustion(new Error("Too many open files in system (os error 23)")));
  assert(!isDescriptorExhaustion(new Error("Connection reset by peer (os error 104)")));
});

Deno.test("DENO_SERVE_ADDRESS: its tcp form is honoured, other forms are left to Deno.serve", () => {
  assertEquals(tcpServeAddress("tcp:127.0.0.1:8000"), { hostname: "127.0.0.1", port: 8000 });
  assertEquals(tcpServeAddress("tcp:[::1]:9000"), { hostname: "::1", port: 9000 });
  assertEquals(tcpServeAddress("tcp:localhost:80"), { hostname: "localhost", port: 80 });
  for (const other of ["unix:/run/t.sock", "vsock:3:80", "tcp:127.0.0.1", "tcp:h:70000"]) {
    assertEquals(tcpServeAddress(other), null, other);
  }
});

Deno.test("pool: random admits, requests, closes and sweeps close what a plain model closes", () => {
  // The model: every connection in an array; the one to shed and the ones due found by scanning.
  type M = { name: string; inFlight: number; since: number; order: number; fresh: boolean };
  const open: M[] = [];
  let seed = 7, order = 0;
  const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
  const t = pool(8);
  const slots = new Map<string, Slot>();
  const now = () => t.advance(0);
  const waiting = () => open.filter((m) => m.inFlight === 0);
  const drop = (m: M) => open.splice(open.indexOf(m), 1);
  for (let i = 0; i < 5000; i++) {
    const op = rnd(6), m = open[rnd(Math.max(1, open.length))];
    if (op === 0) {
      // Oldest first; at the same time a fresh one before an idle one, then the earlier in.
      const oldest = waiting().sort((a, b) =>
        a.since - b.since || Number(b.fresh) - Number(a.fresh) || a.order - b.order
      )[0];
      const full = open.length >= 8;
      if (full && oldest) {
        drop(oldest);
      }
      const s = t.open(`c${i}`);
      assertEquals(s === null, full && !oldest, `admit c${i}`);
      if (s) {
        open.push({ name: `c${i}`, inFlight: 0, since: now(), order: order++, fresh: true });
        slots.set(`c${i}`, s);
      }
    } else if (op === 1 && m) {
      t.p.started(slots.get(m.name)!);
      m.inFlight++;
      m.fresh = false;
    } else if (op === 2 && m?.inFlight) {
      t.p.ended(slots.get(m.name)!);
      if (--m.inFlight === 0) [m.since, m.order] = [now(), order++];
    } else if (op === 3 && m) {
      t.p.gone(slots.get(m.name)!);
      drop(m);
    } else if (op === 4) {
      t.advance(rnd(700));
    } else {
      for (const w of waiting()) if (now() - w.since >= (w.fresh ? 1000 : 5000)) drop(w);
      t.p.sweep();
    }
    const live = [...slots].filter(([, s]) => !s.closed).map(([n]) => n);
    assertEquals(live, open.map((x) => x.name), `open after step ${i}`);
    assertEquals([t.p.live, t.p.waiting], [open.length, waiting().length]);
  }
  assert(t.closed.length > 50, `only ${t.closed.length} closed by the pool`);
});
