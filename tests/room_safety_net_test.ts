/**
 * The Safety Net's state machine on an accelerated fake clock (a sale's hours pass in a loop of
 * one-second steps): it engages when an upper threshold is crossed, stays engaged while either
 * figure is above its lower threshold, and lets go only after `calmMinutes` of calm (hysteresis).
 */
import { assert, assertEquals } from "./assert.ts";
import { FakeClock } from "../lib/clock.ts";
import {
  initialSafetyNet,
  type SafetyNetSample,
  type SafetyNetThresholds,
  stepSafetyNet,
  thresholdProblems,
} from "../lib/room/safety_net.ts";

const T: SafetyNetThresholds = {
  joinsPerMinuteHigh: 600,
  joinsPerMinuteLow: 300,
  holdingHigh: 1000,
  holdingLow: 800,
  calmMinutes: 5,
};

/** Runs `samples(second)` once a simulated second for `seconds`; returns when it switched. */
function run(seconds: number, sample: (sec: number) => SafetyNetSample, t = T) {
  const clock = new FakeClock();
  let st = initialSafetyNet(clock.now());
  const flips: { at: number; queueing: boolean }[] = [];
  for (let sec = 0; sec < seconds; sec++) {
    clock.advance(1000);
    const next = stepSafetyNet(st, sample(sec), t, clock.now());
    if (next.queueing !== st.queueing) flips.push({ at: sec, queueing: next.queueing });
    st = next;
  }
  return { st, flips };
}

Deno.test("calm traffic never engages the Safety Net", () => {
  const { flips } = run(3600, () => ({ joinsPerMinute: 599, holding: 999 }));
  assertEquals(flips, []);
});

Deno.test("joins per minute at the upper threshold engage it at once", () => {
  const { flips } = run(10, (s) => ({ joinsPerMinute: s >= 3 ? 600 : 10, holding: 0 }));
  assertEquals(flips, [{ at: 3, queueing: true }]);
});

Deno.test("holding at the upper threshold engages it too", () => {
  const { flips } = run(10, (s) => ({ joinsPerMinute: 0, holding: s >= 7 ? 1000 : 0 }));
  assertEquals(flips, [{ at: 7, queueing: true }]);
});

Deno.test("it lets go only after calmMinutes below both lower thresholds", () => {
  // A spike for a minute, then 400/min (between the thresholds) for ten minutes, then calm.
  const { flips } = run(3 * 3600, (s) => {
    if (s < 60) return { joinsPerMinute: 2000, holding: 500 };
    if (s < 660) return { joinsPerMinute: 400, holding: 500 };
    return { joinsPerMinute: 100, holding: 100 };
  });
  // Engaged at 0; between the thresholds it holds; calm from 660 for 5 minutes: off at 960.
  assertEquals(flips, [{ at: 0, queueing: true }, { at: 960, queueing: false }]);
});

Deno.test("a figure back above its lower threshold restarts the calm", () => {
  const { flips } = run(2000, (s) => {
    if (s < 10) return { joinsPerMinute: 700, holding: 0 };
    // Calm, one bump at 200 s (holding 850 is above its lower threshold), calm again.
    return { joinsPerMinute: 10, holding: s === 200 ? 850 : 10 };
  });
  // Calm from 10 would end at 310; the bump at 200 restarts it at 201: off at 501.
  assertEquals(flips, [{ at: 0, queueing: true }, { at: 501, queueing: false }]);
});

Deno.test("a room near a threshold does not flap (hysteresis)", () => {
  // Joins wobble around the upper threshold for an hour: it engages once and stays engaged.
  const { flips, st } = run(3600, (s) => ({ joinsPerMinute: s % 2 ? 610 : 590, holding: 0 }));
  assertEquals(flips.length, 1);
  assert(st.queueing);
});

Deno.test("only the figures with thresholds count", () => {
  const onlyJoins = { ...T, holdingHigh: null, holdingLow: null };
  const { flips } = run(60, () => ({ joinsPerMinute: 0, holding: 1_000_000 }), onlyJoins);
  assertEquals(flips, []);
});

Deno.test("a clock that went back restarts the calm instead of ending it early", () => {
  let st = initialSafetyNet(0);
  st = stepSafetyNet(st, { joinsPerMinute: 900, holding: 0 }, T, 1_000);
  st = stepSafetyNet(st, { joinsPerMinute: 0, holding: 0 }, T, 10 * 60_000);
  const back = stepSafetyNet(st, { joinsPerMinute: 0, holding: 0 }, T, 5 * 60_000);
  assert(back.queueing);
  assertEquals(back.calmSince, 5 * 60_000);
});

Deno.test("thresholds in the wrong order, or missing, are named", () => {
  const fields = (t: Partial<SafetyNetThresholds>) =>
    thresholdProblems({ ...T, ...t }).map(([f]) => f);
  assertEquals(fields({}), []);
  assertEquals(fields({ joinsPerMinuteLow: 600 }), ["joinsPerMinuteLow"]);
  assertEquals(fields({ holdingLow: 2000 }), ["holdingLow"]);
  assertEquals(fields({ holdingLow: null }), ["holdingLow"]);
  assertEquals(fields({ holdingHigh: null }), ["holdingLow"]);
  assertEquals(
    fields({
      joinsPerMinuteHigh: null,
      joinsPerMinuteLow: null,
      holdingHigh: null,
      holdingLow: null,
    }),
    ["joinsPerMinuteHigh"],
  );
  assertEquals(fields({ calmMinutes: 0 }), ["calmMinutes"]);
});
