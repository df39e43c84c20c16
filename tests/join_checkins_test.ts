/**
 * Joins keep the check-in budget (750 a second) across instances: a join reads the seconds other
 * instances filled (the ledger's once-a-second refresh from the store) before it picks its own.
 * The 0.8 join path once skipped that refresh, so each instance filled the same seconds from its
 * own reservations only: two instances put up to twice the budget in one second (and a seeded
 * line, bench/seed.ts, no longer matched what joins leave, bench/load_smoke_test.ts).
 */
import { keys } from "../lib/store/keys.ts";
import { STATUS_BUDGET_PER_SECOND } from "../lib/queue/timeslot.ts";
import { FakeClock } from "../lib/clock.ts";
import { assert } from "./assert.ts";
import { makeApp } from "./helpers.ts";

Deno.test("joins on two instances never put more than the budget in one check-in second", async () => {
  const kv = await Deno.openKv(":memory:");
  const clock = new FakeClock();
  const a = await makeApp({ ADMIT_PER_SECOND: 1000 }, { kv, clock });
  const b = await makeApp({ ADMIT_PER_SECOND: 1000 }, { kv, clock, seed: 2 }); // another instance
  // Paused, so every join waits (and is scheduled as in a running line).
  await a.engine.setPaused("default", true);
  for (let i = 0; i < 1500; i++) await a.engine.join("default", null);
  // A second later (B's ledger is read once a second, as every instance's), B joins as many.
  clock.advance(1000);
  for (let i = 0; i < 1500; i++) await b.engine.join("default", null);
  const over: string[] = [];
  let total = 0;
  for await (const e of kv.list<Deno.KvU64>({ prefix: keys.checkinsPrefix("default") })) {
    const n = Number(e.value.value);
    total += n;
    if (n > STATUS_BUDGET_PER_SECOND) over.push(`${String(e.key[2])}: ${n}`);
  }
  assert(total === 3000, `every join reserved its second (${total})`);
  assert(over.length === 0, `seconds over the ${STATUS_BUDGET_PER_SECOND}/s budget: ${over}`);
  kv.close();
});
