/**
 * Helpers of the tests of pending enters (enters_test.ts, enters_race_test.ts): the counts record
 * and the enters' sum as stored, a recount to hold them against, and two instances on one store.
 */
import { delayedKv } from "../testing/delayed_kv.ts";
import { FakeClock } from "../lib/clock.ts";
import { diagnose } from "../lib/queue/doctor.ts";
import { keys } from "../lib/store/keys.ts";
import { type Counts, EMPTY_COUNTS, type Visitor, withDefaults } from "../lib/queue/types.ts";
import type { JoinOutcome } from "../lib/queue/join.ts";
import { readTicketUnverified } from "../lib/tokens.ts";
import { assert, assertEquals } from "./assert.ts";
import { makeApp, type TestApp } from "./helpers.ts";

/** The queue the tests use. */
export const Q = "default";
/** Waits `ms` real milliseconds. */
export const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The counts record as stored (not taken in), and the raw sum of pending enters. */
export async function stored(kv: Deno.Kv, q = Q): Promise<{ c: Counts; sum: bigint }> {
  const [c, s] = await kv.getMany<[Counts, Deno.KvU64]>([keys.counts(q), keys.entersPending(q)]);
  return { c: withDefaults(EMPTY_COUNTS, c.value), sum: s.value?.value ?? 0n };
}

/** Holding and entered, recounted from the visitor records. */
export async function recount(kv: Deno.Kv): Promise<{ holding: number; entered: number }> {
  const out = { holding: 0, entered: 0 };
  for await (const e of kv.list<Visitor>({ prefix: keys.visitorPrefix(Q) })) {
    if (e.value.state === "admitted") out.holding++;
    if (e.value.state === "entered") out.entered++;
  }
  return out;
}

/**
 * With nothing in flight: the record plus the sum equal a recount (no enter lost or taken in
 * twice), the sum never wrapped below zero, and the doctor agrees.
 */
export async function settled(kv: Deno.Kv, label: string): Promise<void> {
  const [{ c, sum }, r] = await Promise.all([stored(kv), recount(kv)]);
  const at = `${label}: record ${JSON.stringify([c.holding, c.entered])}, sum ${sum}`;
  assert(sum < 1n << 63n, `${at}: the sum went below zero (taken in twice)`);
  assertEquals(c.holding + c.entered, r.holding + r.entered, `${at}: slots in use`);
  assertEquals(c.entered + Number(sum), r.entered, `${at}: entered with the pending ones`);
  assertEquals(c.holding - Number(sum), r.holding, `${at}: holding less the pending ones`);
  const d = await diagnose(kv, Q, { pauseMs: 10 });
  assert(d.healthy, `${at}: the doctor finds ${JSON.stringify(d)}`);
}

/** `n` visitors admitted in one tick (joined while paused, so none is admitted at its join). */
export async function admitted(t: TestApp, n: number, q = Q): Promise<JoinOutcome[]> {
  await t.engine.setPaused(q, true);
  const joined = await Promise.all(Array.from({ length: n }, () => t.engine.join(q, null)));
  await t.engine.setPaused(q, false);
  t.clock.advance(1000);
  assertEquals((await t.engine.tick(q)).admitted, n, "all admitted");
  return joined;
}

/** Enters admitted visitors (their status call takes the slot), through instance `t`. */
export async function enter(t: TestApp, js: JoinOutcome[], q = Q): Promise<void> {
  const out = await Promise.all(js.map((j) => t.engine.status(q, readTicketUnverified(j.ticket!))));
  assert(out.every((o) => o.view.status === "admitted" && o.view.entered), "entered");
}

/** Leaves through `t`. */
export async function leave(t: TestApp, j: JoinOutcome): Promise<void> {
  const claims = readTicketUnverified(j.ticket!);
  await t.engine.leave(Q, claims, claims.sub);
}

/** How an instance's store calls are delayed and hooked (see testing/delayed_kv.ts). */
export type Delays = Parameters<typeof delayedKv>[1];

/** Two instances on one store with one clock; their store calls can be delayed and hooked. */
export async function pair(config: Record<string, number>, aDelays?: Delays, bDelays?: Delays) {
  const real = await Deno.openKv(":memory:");
  const clock = new FakeClock();
  const over = (d?: Delays) => d ? delayedKv(real, d) : real;
  const a = await makeApp(config, { kv: over(aDelays), clock });
  const b = await makeApp(config, { kv: over(bDelays), clock, seed: 2 });
  return { real, clock, a, b };
}

/** Whether a commit writing `w` writes the enters' sum (an enter, or a take-in). */
export const isEnter = (w: Deno.KvKey[]) => w.some((k) => k[0] === keys.entersPending(Q)[0]);
/** Whether a commit writing `w` takes enters in: it writes the counts and the sum. */
export const takesIn = (w: Deno.KvKey[]) => w.some((k) => k[0] === "counts") && isEnter(w);

/**
 * Through instance `t` (rate 5 a second): five admitted, the first `entering` of them entered
 * (their enters pending), seven waiting behind with the second's budget spent; then the clock one
 * second on, with a new second's budget due and its tick not run.
 */
export async function lineWithEnters(t: TestApp, entering: number): Promise<JoinOutcome[]> {
  const js = await admitted(t, 5);
  await enter(t, js.slice(0, entering));
  for (let i = 0; i < 7; i++) await t.engine.join(Q, null);
  await t.engine.sequence(Q); // numbered, as each tick does first (0.8.0)
  const { c, sum } = await stored(t.kv);
  assertEquals([c.holding, c.entered, c.waiting, sum], [5, 0, 7, BigInt(entering)]);
  t.clock.advance(1000);
  return js;
}
