/**
 * The island's check-in loop (client/timeslots.ts) with a fake clock, fake timers and a scripted
 * server: it checks in at `nextCheckAt` (never a fixed loop), corrects a skewed browser clock,
 * joins again at most once in a row when the cookie does not stick, and backs off on errors.
 */
import {
  followTimeslots,
  type Gone,
  retryAfterMs,
  SLACK_MS,
  type TimeslotDeps,
} from "../client/timeslots.ts";
import type { VisitorView } from "../lib/queue/types.ts";
import { assert, assertEquals } from "./assert.ts";

/** The browser is an hour behind the server in most tests. */
const SKEW = 3_600_000;
const SERVER_START = Date.UTC(2026, 0, 1);

/** Fake timers over a fake browser clock, and a server scripted one answer at a time. */
class World {
  local = SERVER_START - SKEW;
  timers: { at: number; ms: number; fn: () => void; id: number }[] = [];
  delays: number[] = [];
  calls: { at: number; method: string; path: string }[] = [];
  views: VisitorView[] = [];
  gone: Gone[] = [];
  /** Server time minus browser time; the page starts out knowing it. */
  skew = SKEW;
  offset = { current: SKEW };
  hidden = false;
  listeners = new Set<() => void>();
  /** `online` listeners (the window's). */
  online = new Set<() => void>();
  #next = 1;
  /** What the server answers next; the last one repeats. */
  answers: (() => Response)[] = [];

  get serverNow() {
    return this.local + this.skew;
  }

  deps(): TimeslotDeps {
    return {
      now: () => this.local,
      random: () => 1,
      setTimeout: (fn, ms) => {
        const id = this.#next++;
        this.delays.push(ms);
        this.timers.push({ at: this.local + ms, ms, fn, id });
        return id;
      },
      clearTimeout: (id) => (this.timers = this.timers.filter((t) => t.id !== id)),
      fetch: (input, init) => {
        this.calls.push({ at: this.serverNow, method: init?.method ?? "GET", path: input });
        const next = this.answers.length > 1 ? this.answers.shift()! : this.answers[0];
        return next ? Promise.resolve(next()) : Promise.reject(new TypeError("network down"));
      },
      visibility: {
        get hidden() {
          return world.hidden;
        },
        addEventListener: (_t, fn) => this.listeners.add(fn),
        removeEventListener: (_t, fn) => this.listeners.delete(fn),
      },
      network: {
        addEventListener: (_t, fn) => this.online.add(fn),
        removeEventListener: (_t, fn) => this.online.delete(fn),
      },
    };
  }

  start(view: VisitorView) {
    return followTimeslots({
      queue: "default",
      view,
      offset: this.offset,
      onView: (v) => this.views.push(v),
      onGone: (why) => this.gone.push(why),
      deps: this.deps(),
    });
  }

  /** Moves the browser clock on, firing due timers in order and letting their work finish. */
  async advance(ms: number) {
    const end = this.local + ms;
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at);
      const t = this.timers[0];
      if (!t || t.at > end) break;
      this.timers.shift();
      this.local = t.at;
      t.fn();
      await settle();
    }
    this.local = end;
  }
}
let world: World;

/** Lets the loop's awaited fetch and body reads run (no clock moves). */
async function settle() {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
}

/** A waiting view from the server at its current time, next check `inMs` later. */
function waiting(inMs: number, position = 5): VisitorView {
  return {
    queue: "default",
    visitorId: "v1",
    status: "waiting",
    position,
    nextCheckAt: world.serverNow + inMs,
    nextPollAfterMs: inMs,
  };
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}
const err = (status: number, code: string, headers: Record<string, string> = {}) => () =>
  json(status, { error: { code, message: code, details: {} } }, headers);
const ok = (inMs: number, position = 5) => () => json(200, waiting(inMs, position));

Deno.test("checks in at nextCheckAt (not a fixed loop), right on a clock an hour behind", async () => {
  world = new World();
  const stop = world.start(waiting(30_000));
  assertEquals(world.delays, [30_000 + SLACK_MS], "one timer, to the server's slot");
  world.answers = [ok(20_000, 4)];
  await world.advance(30_000);
  assertEquals(world.calls.length, 0, "nothing before nextCheckAt");
  await world.advance(SLACK_MS);
  assertEquals(world.calls.map((c) => c.path), ["/status?queue=default"]);
  assertEquals(world.views.map((v) => v.position), [4]);
  assertEquals(world.delays.at(-1), 20_000 + SLACK_MS, "the next slot, not a fixed period");
  await world.advance(20_000 + SLACK_MS);
  assertEquals(world.calls.length, 2);
  assertEquals(world.calls[1].at - world.calls[0].at, 20_000 + SLACK_MS);
  stop();
  assertEquals(world.timers.length, 0, "stopping clears the timer");
});

Deno.test("clock skew: the offset follows the server's answers and its Date header", async () => {
  world = new World();
  world.start(waiting(10_000));
  world.answers = [ok(15_000)];
  // While waiting, the browser's clock is set back another hour (timers are not affected).
  world.skew += SKEW;
  await world.advance(10_000 + SLACK_MS);
  assertEquals(world.calls.length, 1);
  assertEquals(world.offset.current, 2 * SKEW, "server now = nextCheckAt - nextPollAfterMs");
  assertEquals(world.delays.at(-1), 15_000 + SLACK_MS, "not an hour late");
  // An answer without a view (a 503): the Date header (whole seconds, +500 ms) sets the clock.
  world = new World();
  world.start(waiting(1000));
  world.skew = 42_000;
  const date = new Date(Math.floor(world.serverNow / 1000) * 1000 + 1000).toUTCString();
  world.answers = [err(503, "internal", { date, "retry-after": "5" })];
  await world.advance(1000 + SLACK_MS);
  assertEquals(world.calls.length, 1);
  assertEquals(world.offset.current, Date.parse(date) + 500 - world.local);
  assert(Math.abs(world.offset.current - 42_000) <= 1500, `${world.offset.current}`);
});

Deno.test("a lost ticket: one join, and when the cookie does not stick, stop and say so", async () => {
  world = new World();
  world.start(waiting(5000, 1));
  world.answers = [err(401, "unauthorized"), () => json(202, waiting(5000, 9))];
  await world.advance(5000 + SLACK_MS);
  assertEquals(world.calls.map((c) => c.method + " " + c.path), [
    "GET /status?queue=default",
    "POST /join",
  ]);
  assertEquals(world.views.at(-1)?.position, 9);
  // The browser dropped the new ticket too (a cross-site iframe): no second join, ever.
  world.answers = [err(401, "unauthorized")];
  await world.advance(5000 + SLACK_MS);
  assertEquals(world.calls.length, 3);
  assertEquals(world.gone, ["cookies"]);
  assertEquals(world.timers.length, 0, "no timer left");
  assertEquals(world.listeners.size, 0, "no visibility re-check either");
  assertEquals(world.online.size, 0, "nor an online one");
  await world.advance(600_000);
  assertEquals(world.calls.filter((c) => c.method === "POST").length, 1, "exactly one join");
});

Deno.test("a lost ticket after the cookie worked once is joined again (dropped visitor)", async () => {
  world = new World();
  world.start(waiting(5000));
  world.answers = [
    err(404, "not_in_queue"),
    () => json(202, waiting(5000, 7)),
    ok(5000, 6), // the cookie came back: fine
    err(404, "not_in_queue"), // dropped again later (a suspended tab)
    () => json(202, waiting(5000, 8)),
  ];
  await world.advance(3 * (5000 + SLACK_MS));
  assertEquals(world.calls.filter((c) => c.method === "POST").length, 2);
  assertEquals(world.gone, []);
  assertEquals(world.views.map((v) => v.position), [7, 6, 8]);
});

Deno.test("unknown queue: closed, no join, no timer", async () => {
  world = new World();
  world.start(waiting(1000));
  world.answers = [err(404, "unknown_queue")];
  await world.advance(1000 + SLACK_MS);
  assertEquals(world.gone, ["closed"]);
  assertEquals(world.calls.length, 1);
  assertEquals(world.timers.length, 0);
});

Deno.test("network errors and 5xx back off exponentially up to a minute", async () => {
  world = new World();
  world.start(waiting(1000));
  world.answers = []; // every fetch rejects: the network is down
  await world.advance(1000 + SLACK_MS);
  for (let i = 0; i < 7; i++) await world.advance(world.delays.at(-1)!);
  assertEquals(world.delays.slice(1), [2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000]);
  // Back: the next good answer resets the backoff and the slots take over again.
  world.answers = [err(500, "internal"), ok(5000)];
  await world.advance(60_000);
  assertEquals(world.delays.at(-1), 60_000, "a 500 backs off like a network error");
  await world.advance(60_000);
  assertEquals(world.delays.at(-1), 5000 + SLACK_MS);
  world.answers = [err(502, "bad_gateway")];
  await world.advance(5000 + SLACK_MS);
  assertEquals(world.delays.at(-1), 2000, "from the start again");
});

Deno.test("back online after failed check-ins: it checks in at once, not when the backoff ends", async () => {
  world = new World();
  world.start(waiting(1000));
  world.answers = []; // a train tunnel: every fetch fails
  await world.advance(1000 + SLACK_MS);
  for (let i = 0; i < 5; i++) await world.advance(world.delays.at(-1)!);
  assertEquals(world.delays.at(-1), 60_000, "backing off for a minute");
  const before = world.calls.length;
  world.answers = [ok(5000)];
  for (const fn of world.online) fn();
  await settle();
  assertEquals(world.calls.length, before + 1, "checked in as the browser came back online");
  assertEquals(world.views.length, 1);
  assertEquals(world.delays.at(-1), 5000 + SLACK_MS, "the slots take over again");
  // Online again while all is well and nothing is due: no extra check-in.
  for (const fn of world.online) fn();
  await settle();
  assertEquals(world.calls.length, before + 1);
});

Deno.test("503: Retry-After is honoured (capped), queue_full says so, then it recovers", async () => {
  world = new World();
  world.start(waiting(1000));
  world.answers = [err(503, "queue_full", { "retry-after": "120" }), ok(5000)];
  await world.advance(1000 + SLACK_MS);
  assertEquals(world.gone, ["full"]);
  assertEquals(world.delays.at(-1), 120_000);
  await world.advance(119_000);
  assertEquals(world.calls.length, 1, "not before Retry-After");
  await world.advance(1000);
  assertEquals(world.calls.length, 2);
  assertEquals(world.views.length, 1);
  const r = (h: string) => new Response(null, { status: 503, headers: { "retry-after": h } });
  assertEquals(retryAfterMs(r("999999"), 0), 600_000, "capped at 10 minutes");
  assertEquals(retryAfterMs(r(new Date(90_000).toUTCString()), 60_000), 30_000, "an HTTP date");
  assertEquals(retryAfterMs(r("soon"), 0), null);
});

Deno.test("a hidden tab whose timer was late checks in as soon as it is shown", async () => {
  world = new World();
  world.start(waiting(5000));
  world.answers = [ok(5000)];
  // The browser throttled the timer: the slot passes with no check.
  const late = world.timers.splice(0);
  assertEquals(late.length, 1);
  world.local += 9000;
  // The slot is due, but the tab is still hidden (another tab changed visibility): no check.
  world.hidden = true;
  for (const fn of world.listeners) fn();
  await settle();
  assertEquals(world.calls.length, 0, "not while still hidden");
  world.hidden = false;
  for (const fn of world.listeners) fn();
  await settle();
  assertEquals(world.calls.length, 1, "checked on becoming visible");
  for (const fn of world.listeners) fn();
  await settle();
  assertEquals(world.calls.length, 1, "not again before the next slot");
});

Deno.test("a place moved to another device: said once, no join, no timer", async () => {
  world = new World();
  world.start(waiting(1000));
  world.answers = [err(409, "place_moved")];
  await world.advance(1000 + SLACK_MS);
  assertEquals(world.gone, ["moved"]);
  assertEquals(world.calls.map((c) => c.method), ["GET"], "no join takes a new place");
  assertEquals(world.timers.length, 0);
  await world.advance(60_000);
  assertEquals(world.calls.length, 1);
});
