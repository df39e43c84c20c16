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
import { CheckinLedger } from "../lib/queue/checkins.ts";
import { until } from "../testing/until.ts";
import { assert, assertEquals } from "./assert.ts";
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

/**
 * The real store behind a gate: `list` (all the ledger reads) waits while the gate is shut, as a
 * read over a slow store would.
 */
function gatedKv(kv: Deno.Kv) {
  let gate = Promise.resolve();
  let release = () => {};
  const g = {
    reads: 0,
    done: 0,
    list<T>(sel: Deno.KvListSelector, opts?: Deno.KvListOptions) {
      g.reads++;
      return (async function* () {
        await gate;
        yield* kv.list<T>(sel, opts);
        g.done++;
      })();
    },
    shut() {
      gate = new Promise<void>((r) => release = r);
    },
    open: () => release(),
  };
  return g;
}

Deno.test("a check-in ledger read within three seconds serves while it is read again; what it reserved meanwhile is added to what the read saw", async () => {
  const kv = await Deno.openKv(":memory:");
  const q = "default";
  const at = (sec: number, n: number) => kv.set(keys.checkins(q, sec), new Deno.KvU64(BigInt(n)));
  const g = gatedKv(kv);
  const ledger = new CheckinLedger(g as unknown as Deno.Kv);
  await at(103, 700);
  await ledger.refresh(q, 100, 5);
  // Another instance fills second 103 to 740 meanwhile; the next read is slow.
  await at(103, 740);
  g.shut();
  let served = false;
  const p = ledger.refresh(q, 101, 5).then(() => served = true);
  await new Promise((r) => setTimeout(r, 20));
  assert(served, "a join or status does not wait for the ledger read a second old");
  // Ten check-ins taken on the ledger as it was (700 seen: room in 103).
  for (let i = 0; i < 10; i++) assertEquals(ledger.reserve(q, 103, 104), 103);
  g.open();
  await p;
  assert(await until(() => g.done === 2), "the read behind ran");
  await new Promise((r) => setTimeout(r, 0));
  // 740 read, and the ten taken meanwhile on top: 103 is full.
  assertEquals(ledger.reserve(q, 103, 104), 104);
  // A ledger older than three seconds is read before it serves.
  g.shut();
  served = false;
  const late = ledger.refresh(q, 105, 5).then(() => served = true);
  await new Promise((r) => setTimeout(r, 20));
  assert(!served, "a ledger four seconds old is not used");
  g.open();
  await late;
  assertEquals(g.reads, 3);
  kv.close();
});
