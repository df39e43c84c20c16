/**
 * Writes that no retried commit wraps (the claim of a second's tick) are tried again while another
 * process holds the KV file locked: SQLite throws "database is locked" at once at times.
 */
import { beforeDeadline, lockRetried } from "../lib/store/commit.ts";
import { StoreBusyError } from "../lib/errors.ts";
import { assert, assertEquals, assertRejects } from "./assert.ts";

const locked = () => new Error("database is locked");

Deno.test("lockRetried: lock errors are tried again, others thrown at once, and it ends by its bound", async () => {
  let calls = 0;
  const ok = await lockRetried(
    () => ++calls < 3 ? Promise.reject(locked()) : Promise.resolve("written"),
    Date.now() + 1000,
    "test",
  );
  assertEquals([ok, calls], ["written", 3]);
  calls = 0;
  const other = await assertRejects(
    () =>
      lockRetried(
        () => (calls++, Promise.reject(new TypeError("bad key"))),
        Date.now() + 1000,
        "test",
      ),
    "bad key",
  );
  assert(other instanceof TypeError, "thrown as it was");
  assertEquals(calls, 1, "not tried again");
  const started = Date.now();
  const e = await assertRejects(
    () => lockRetried(() => Promise.reject(locked()), Date.now() + 150, "test"),
    "the store stayed locked",
  );
  const took = Date.now() - started;
  assert(took < 400, `gave up by its bound (${took} ms)`);
  assert(e instanceof StoreBusyError, "a 503 store_busy");
});

/** Blocks the whole process for `ms`, as a stopped host or a frozen VM does. */
function stall(ms: number): void {
  const end = Date.now() + ms;
  while (Date.now() < end) { /* stalled */ }
}

Deno.test("beforeDeadline: a process that stalls past a deadline lets an answer due meanwhile win within its settle time", async () => {
  const due = (ms: number) => new Promise<string>((r) => setTimeout(() => r("landed"), ms));
  // The answer's timer comes due after the deadline's sweep (every 50 ms), both during the stall.
  const settled = beforeDeadline(
    (async () => {
      await new Promise((r) => setTimeout(r, 0));
      return await due(60);
    })(),
    Date.now() + 10,
    "join",
    100,
  );
  stall(400);
  assertEquals(await settled, "landed");
  // Without a settle time the deadline, seen first, answers.
  const cut = beforeDeadline(due(60), Date.now() + 10, "join");
  stall(400);
  assert((await assertRejects(() => cut, "in time")) instanceof StoreBusyError, "503 store_busy");
  // A deadline seen on time (no stall: a slow store) gets none of its settle time.
  const never = beforeDeadline(new Promise<string>(() => {}), Date.now() + 10, "join", 3000);
  // (The deadlines' timer keeps nothing alive by itself: a write under way does.)
  const alive = setTimeout(() => {}, 5000);
  const started = Date.now();
  assert((await assertRejects(() => never, "in time")) instanceof StoreBusyError, "then 503");
  const took = Date.now() - started;
  assert(took < 1000, `gave up on time, not after the settle time (${took} ms)`);
  clearTimeout(alive);
});
