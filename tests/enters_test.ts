/**
 * Enters kept out of the counts record, over real KV: each enter adds to a conflict-free sum
 * (`keys.entersPending`) that the next writer of the counts takes in. Here each writer does, once:
 * a leave, the tick (also freeing an expired slot whose enter is pending), a join commit carrying
 * the tick, and the doctor's repair; the doctor counts pending enters; an enter or a leave written
 * the way release 0.7.1 wrote them (into the counts record) counts beside them; deleting a queue
 * deletes the sum. Races between enters and take-ins are in enters_race_test.ts.
 */
import { diagnose, repairCounters } from "../lib/queue/doctor.ts";
import { enterAdmitted, releaseSlot } from "../lib/queue/records.ts";
import { keys } from "../lib/store/keys.ts";
import { type Counts, EMPTY_COUNTS, type Visitor, withDefaults } from "../lib/queue/types.ts";
import type { JoinOutcome } from "../lib/queue/join.ts";
import { readTicketUnverified } from "../lib/tokens.ts";
import { assert, assertEquals } from "./assert.ts";
import { admitted, enter, leave, Q, settled, stored } from "./enters_helpers.ts";
import { makeApp, type TestApp } from "./helpers.ts";

Deno.test("a leave takes pending enters in: an entered visitor leaving before the tick", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 10, CAPACITY: 100 });
  const js = await admitted(t, 4);
  await enter(t, js.slice(0, 3));
  let s = await stored(t.kv);
  assertEquals([s.c.holding, s.c.entered, s.sum], [4, 0, 3n], "three enters pending");
  await leave(t, js[0]);
  s = await stored(t.kv);
  assertEquals([s.c.holding, s.c.entered, s.sum], [1, 2, 0n], "taken in, then its slot freed");
  await settled(t.kv, "after the entered visitor left");
  // An admitted one (never entered) leaving beside a pending enter.
  await leave(t, js[3]);
  s = await stored(t.kv);
  assertEquals([s.c.holding, s.c.entered, s.sum], [0, 2, 0n]);
  await settled(t.kv, "after the admitted visitor left");
  t.close();
});

Deno.test("the tick frees an expired entered visitor whose enter is still pending", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 10, CAPACITY: 100, ACCESS_TOKEN_TTL_SECONDS: 10 });
  const js = await admitted(t, 3);
  await enter(t, js.slice(0, 2));
  assertEquals((await stored(t.kv)).sum, 2n);
  // Their tokens expire before any writer of the counts took their enters in.
  t.clock.advance(11_000);
  const r = await t.engine.tick(Q);
  assert(r.ran && r.expired >= 2, `the tick freed them: ${JSON.stringify(r)}`);
  const s = await stored(t.kv);
  assertEquals([s.c.entered, s.sum], [0, 0n], "taken in and freed in one commit");
  assert(s.c.holding >= 0, `holding ${s.c.holding}`);
  await settled(t.kv, "after the expiry");
  t.close();
});

/**
 * `kv` whose `nth` listing of visitor records (1-based) first runs `hook`: a change that lands
 * while the doctor scans, after it read the counts and before it lists the visitors.
 */
function onVisitorListing(kv: Deno.Kv, nth: number, hook: () => Promise<void>): Deno.Kv {
  let seen = 0;
  return new Proxy(kv, {
    get(target, prop) {
      if (prop === "list") {
        return (sel: Deno.KvListSelector, o?: Deno.KvListOptions) => {
          const visitors = "prefix" in sel && sel.prefix[0] === keys.visitorPrefix(Q)[0];
          if (!visitors || ++seen !== nth) return target.list(sel, o);
          return (async function* () {
            await hook();
            yield* target.list(sel, o);
          })();
        };
      }
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

Deno.test("the doctor counts pending enters, and an enter during its scan is no difference", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 10, CAPACITY: 100 });
  const js = await admitted(t, 8);
  await enter(t, js.slice(0, 5));
  assertEquals((await stored(t.kv)).sum, 5n);
  const d = await diagnose(t.kv, Q, { pauseMs: 10 });
  assert(d.healthy, `healthy with enters pending: ${JSON.stringify(d)}`);
  assertEquals([d.stored.holding, d.stored.entered], [3, 5], "stored as they are, sum taken in");
  // One more enters after the doctor read the counts and the sum, before it lists the visitors.
  const seen = await diagnose(onVisitorListing(t.kv, 1, () => enter(t, [js[5]])), Q, {
    pauseMs: 10,
  });
  assertEquals((await stored(t.kv)).sum, 6n, "it entered during the scan");
  assert(seen.healthy, `an enter during the scan is no difference: ${JSON.stringify(seen)}`);
  assert(seen.live, "the scan saw the store change");
  await settled(t.kv, "after the scans");
  t.close();
});

Deno.test("the doctor's repair writes the recount and takes the pending enters in", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 10, CAPACITY: 100 });
  const js = await admitted(t, 10);
  await enter(t, js.slice(0, 6));
  // The record's holding is off by three (as a fault would leave it); six enters are pending.
  let s = await stored(t.kv);
  await t.kv.set(keys.counts(Q), { ...s.c, holding: s.c.holding + 3 });
  const d = await diagnose(t.kv, Q, { pauseMs: 10 });
  assertEquals(d.counterDiffs, ["holding"]);
  const r = await repairCounters(t.kv, Q, 20, { pauseMs: 10 });
  assert(r.repaired, `repaired: ${JSON.stringify(r)}`);
  s = await stored(t.kv);
  assertEquals([s.c.holding, s.c.entered, s.sum], [4, 6, 0n], "the recount, with the sum taken in");
  await settled(t.kv, "after repairing holding");

  // Now entered off, with enters pending again; one more enters during the repair's own scan.
  await enter(t, js.slice(6, 9));
  s = await stored(t.kv);
  assertEquals([s.c.holding, s.c.entered, s.sum], [4, 6, 3n]);
  await t.kv.set(keys.counts(Q), { ...s.c, entered: s.c.entered + 2 });
  const kv = onVisitorListing(t.kv, 2, () => enter(t, [js[9]]));
  const again = await repairCounters(kv, Q, 20, { pauseMs: 10 });
  assert(again.repaired, `repaired: ${JSON.stringify(again)}`);
  assertEquals(again.counterDiffs, ["entered"]);
  s = await stored(t.kv);
  assertEquals([s.c.holding + s.c.entered, s.c.entered + Number(s.sum)], [10, 10], "all entered");
  await settled(t.kv, "after repairing entered");
  t.close();
});

/**
 * An enter as release 0.7.1 commits it: checked against the counts record, which it writes
 * (holding - 1, entered + 1) in the same commit as the visitor's record.
 */
async function enterAsBefore(t: TestApp, j: JoinOutcome): Promise<void> {
  const sub = readTicketUnverified(j.ticket!).sub;
  const [ve, ce] = await t.kv.getMany<[Visitor, Counts]>([keys.visitor(Q, sub), keys.counts(Q)]);
  assertEquals(ve.value?.state, "admitted");
  const counts = withDefaults(EMPTY_COUNTS, ce.value);
  const op = t.kv.atomic().check(ve, ce);
  enterAdmitted(op, Q, ve.value!, counts, t.clock.now(), t.config.ACCESS_TOKEN_TTL_SECONDS);
  assert((await op.set(keys.counts(Q), counts).commit()).ok, "entered the old way");
}

/** A leave as release 0.7.1 commits it: the slot freed in the counts, no enters taken in. */
async function leaveAsBefore(t: TestApp, j: JoinOutcome): Promise<void> {
  const sub = readTicketUnverified(j.ticket!).sub;
  const [ve, ce] = await t.kv.getMany<[Visitor, Counts]>([keys.visitor(Q, sub), keys.counts(Q)]);
  const counts = withDefaults(EMPTY_COUNTS, ce.value);
  const op = t.kv.atomic().check(ve, ce);
  releaseSlot(op, Q, ve.value!, counts);
  assert((await op.set(keys.counts(Q), counts).commit()).ok, "left the old way");
}

Deno.test("enters and leaves written by release 0.7.1 beside pending enters: totals stay right", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 10, CAPACITY: 100 });
  const js = await admitted(t, 7);
  await enter(t, js.slice(0, 3));
  await enterAsBefore(t, js[3]);
  let s = await stored(t.kv);
  assertEquals([s.c.holding, s.c.entered, s.sum], [6, 1, 3n], "one in the record, three pending");
  await settled(t.kv, "an old enter beside new ones");
  // Old-release leaves of visitors whose enters are pending: the record's entered goes below
  // zero for a while (that release knows no sum), the totals stay right.
  await leaveAsBefore(t, js[0]);
  await leaveAsBefore(t, js[1]);
  s = await stored(t.kv);
  assertEquals([s.c.holding, s.c.entered, s.sum], [6, -1, 3n]);
  await settled(t.kv, "old leaves beside pending enters");
  const m = await t.engine.metrics(Q);
  assertEquals([m.holding, m.entered, m.openSlots], [3, 2, 95], "metrics count the pending ones");
  // The next tick (this release) takes the three in: the record is right again.
  await enter(t, [js[4]]);
  t.clock.advance(1000);
  assert((await t.engine.tick(Q)).ran, "a tick ran");
  s = await stored(t.kv);
  assertEquals([s.c.holding, s.c.entered, s.sum], [2, 3, 0n]);
  await settled(t.kv, "after the tick");
  t.close();
});

Deno.test("deleting a queue deletes its pending enters' sum", async () => {
  const t = await makeApp({ QUEUES: ["default", "shop"], ADMIT_PER_SECOND: 10, CAPACITY: 100 });
  await enter(t, await admitted(t, 3, "shop"), "shop");
  await enter(t, await admitted(t, 2), Q);
  assertEquals((await stored(t.kv, "shop")).sum, 3n);
  await t.engine.deleteQueue("shop", true);
  assertEquals((await t.kv.get(keys.entersPending("shop"))).versionstamp, null, "the sum is gone");
  assertEquals((await t.kv.get(keys.counts("shop"))).versionstamp, null, "with the counts");
  assertEquals((await stored(t.kv)).sum, 2n, "another queue's sum is left alone");
  await settled(t.kv, "the other queue");
  t.close();
});
