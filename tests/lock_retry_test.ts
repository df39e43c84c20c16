/**
 * Writes that no retried commit wraps (the claim of a second's tick) are tried again while another
 * process holds the KV file locked: SQLite throws "database is locked" at once at times.
 */
import { lockRetried } from "../lib/store/commit.ts";
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
