/**
 * Writes on the join and tick paths that no retried commit wraps (a hand-over's inbox record, its
 * take-back, the claim of a second's tick) are tried again while another process holds the KV
 * file locked: SQLite throws "database is locked" at once at times, and with four processes on one
 * file a hand-over written once failed about a quarter of a flash crowd's joins with 503
 * (bench/multi_flash.ts).
 */
import { delayedKv } from "../testing/delayed_kv.ts";
import { keys } from "../lib/store/keys.ts";
import { lockRetried } from "../lib/store/commit.ts";
import { StoreBusyError } from "../lib/errors.ts";
import { readInbox } from "../lib/queue/join_relay.ts";
import type { Counts } from "../lib/queue/types.ts";
import { assert, assertEquals, assertRejects } from "./assert.ts";
import { makeApp } from "./helpers.ts";
import { heldBy } from "../testing/turns.ts";

const Q = "default";
const locked = () => new Error("database is locked");

Deno.test("a hand-over that meets a locked store is written once the lock is gone, and its join placed", async () => {
  const real = await Deno.openKv(":memory:");
  let locks = 3;
  const kv = delayedKv(real, {
    readMs: 0,
    commitMs: 0,
    beforeCommit: (written) => {
      const inbox = written.some((k) => k[0] === keys.joinInboxPrefix(Q)[0]);
      if (inbox && locks > 0) return locks--, Promise.reject(locked());
      return Promise.resolve();
    },
  });
  const t = await makeApp({ ADMIT_PER_SECOND: 1, CAPACITY: 0 }, { kv });
  // Another instance (of this release) holds a live turn: this one hands its join over.
  await real.set(keys.counts(Q), heldBy("rholder1", 2000));
  const joined = t.engine.join(Q, null);
  let inbox = await readInbox(real, Q);
  for (let i = 0; i < 50 && inbox.length === 0; i++) {
    await new Promise((r) => setTimeout(r, 10));
    inbox = await readInbox(real, Q);
  }
  assertEquals(locks, 0, "the store was locked three times");
  assertEquals(inbox.length, 1, "the hand-over was written all the same");
  // The holder stopped (nobody's turn): the sender of the oldest record commits it itself.
  await real.set(keys.counts(Q), heldBy("", 0));
  const out = await joined;
  assertEquals([out.view.status, out.view.position], ["waiting", 1]);
  const c = (await real.get<Counts>(keys.counts(Q))).value!;
  assertEquals(c.nextSeq - 1, 1, "placed once");
  assertEquals((await readInbox(real, Q)).length, 0, "its record taken");
  real.close();
});

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
