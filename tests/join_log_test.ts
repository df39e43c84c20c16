/**
 * Logged joins (lib/queue/join_log.ts), over real KV: a join commit past KV's 1,000 mutations
 * writes the rest of its newcomers as chunks and expands them before answering (every record,
 * line and deadline entry there, every position exact, one join commit for the crowd); an
 * admission that meets a chunk not yet expanded (its writer died) expands it first, so nobody
 * behind it goes first; counts last written by a previous release get no chunks.
 */
import { delayedKv, KvTally } from "../testing/delayed_kv.ts";
import { keys } from "../lib/store/keys.ts";
import { type Counts, EMPTY_COUNTS, type Visitor, withDefaults } from "../lib/queue/types.ts";
import { diagnose } from "../lib/queue/doctor.ts";
import { readTicketUnverified } from "../lib/tokens.ts";
import { wrongPositions } from "../testing/positions.ts";
import {
  addToChunk,
  type JoinChunk,
  LOG_MARKER,
  mayLog,
  writeChunks,
} from "../lib/queue/join_log.ts";
import { putWaiting } from "../lib/queue/records.ts";
import { readInbox, readResult, relay, withdraw, writeResult } from "../lib/queue/join_relay.ts";
import { assert, assertEquals } from "./assert.ts";
import { makeApp } from "./helpers.ts";
import { heldBy, turnOf } from "../testing/turns.ts";

const Q = "default";
const CROWD = 1200;

/** Commits that wrote chunks, and join commits, told apart by the keys they write. */
const kind = (w: Deno.KvKey[]) =>
  w.some((k) => k[0] === "jl") && w.some((k) => k[0] === "counts")
    ? "logged"
    : w.some((k) => k[0] === "t" && k[3] === "in")
    ? "join"
    : "x";

/** A waiter that joined at `now` as arrival `seq`, checking in 5 s on, lapsing `lapse` on. */
const waiter = (id: string, seq: number, now: number, lapse = 60_000): Visitor => ({
  id,
  seq,
  joinedAt: now,
  state: "waiting",
  nextCheckAt: now + 5000,
  deadline: now + lapse,
});

/** A crowd joining at once behind one first join, over a store whose commits take 60 ms. */
async function crowd(real: Deno.Kv, tally: KvTally) {
  const t = await makeApp({ ADMIT_PER_SECOND: 1, CAPACITY: 1 }, {
    kv: delayedKv(real, { readMs: 5, commitMs: 60, kind }, tally),
  });
  // Each answer's record is read as soon as the answer comes (a chunk is expanded before its
  // joins are answered, so none may be missing then).
  let missing = 0;
  const join = async () => {
    const o = await t.engine.join(Q, null);
    if (!(await real.get(keys.visitor(Q, readTicketUnverified(o.ticket).sub))).value) missing++;
    return o;
  };
  const first = join();
  await new Promise((r) => setTimeout(r, 1));
  const outs = await Promise.all([first, ...Array.from({ length: CROWD }, join)]);
  return { t, outs, missing };
}

Deno.test("a crowd past KV's mutations goes into chunks, expanded before anyone is answered", async () => {
  const real = await Deno.openKv(":memory:");
  const tally = new KvTally();
  const { outs, missing } = await crowd(real, tally);
  assertEquals(missing, 0, "every record there when its answer came");
  const logged = tally.byKind.get("logged");
  assert(logged && logged.commits - logged.lost >= 1, "a join commit wrote chunks");
  const answers: { seq: number; position: number }[] = [];
  for (const o of outs) {
    if (o.view.status !== "waiting") continue;
    const { seq, sub: vid } = readTicketUnverified(o.ticket);
    answers.push({ seq, position: o.view.position! });
    // Answered, so its record and entries are there (read straight from the store).
    const [v, line] = await real.getMany<[Visitor, string]>([
      keys.visitor(Q, vid),
      keys.fifo(Q, seq),
    ]);
    assertEquals(v.value?.seq, seq, `the record of ${seq}`);
    assertEquals(line.value, vid, `the line entry of ${seq}`);
    const dl = await real.get(keys.deadline(Q, v.value!.deadline, vid));
    assertEquals(dl.value, seq, `the deadline entry of ${seq}`);
  }
  const c = withDefaults(EMPTY_COUNTS, (await real.get<Counts>(keys.counts(Q))).value);
  assertEquals(c.nextSeq - 1, CROWD + 1, "every join committed once");
  assertEquals(answers.length, c.waiting, "every waiter answered");
  assertEquals(wrongPositions(answers, c.admitted), 0, "every answer exact");
  const left = await Array.fromAsync(real.list({ prefix: keys.joinLogPrefix(Q) }));
  assertEquals(left.length, 0, "no chunk left");
  const d = await diagnose(real, Q);
  assert(d.healthy, `counts equal a recount: ${JSON.stringify(d)}`);
  real.close();
});

Deno.test("an admission that meets a chunk expands it first: nobody behind it goes first", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 3, CAPACITY: 100 });
  const now = t.clock.now();
  // As a writer that died after its join commit leaves it: arrivals 1-3 in a chunk, 4 written
  // as itself by a later commit, and a budget of three admissions.
  const chunks: JoinChunk[] = [];
  const ids = ["chunkAAA1", "chunkAAA2", "chunkAAA3"];
  ids.forEach((id, i) => addToChunk(chunks, waiter(id, i + 1, now)));
  const later = waiter("laterAAA4", 4, now);
  const counts: Counts = {
    ...EMPTY_COUNTS,
    nextSeq: 5,
    waiting: 4,
    // A second's refill: three admissions.
    tokens: 0,
    tokensAt: now,
    logSince: 1,
  };
  const op = t.kv.atomic().set(keys.counts(Q), counts);
  writeChunks(op, Q, chunks);
  putWaiting(op, Q, later);
  assert((await op.commit()).ok);
  assertEquals(
    (await t.kv.get(keys.fifo(Q, 1))).value,
    LOG_MARKER,
    "the chunk's marker is in line",
  );
  t.clock.advance(1000);
  const r = await t.engine.tick(Q);
  assertEquals(r.admitted, 3, "the budget of three spent");
  for (const id of ids) {
    const v = (await t.kv.get<Visitor>(keys.visitor(Q, id))).value;
    assertEquals(v?.state, "admitted", `${id}, ahead in line, admitted`);
  }
  const v4 = (await t.kv.get<Visitor>(keys.visitor(Q, later.id))).value;
  assertEquals(v4?.state, "waiting", "the later arrival still waits");
  assertEquals((await t.kv.get(keys.joinLog(Q, 1))).value, null, "the chunk is expanded");
  const d = await diagnose(t.kv, Q);
  assert(d.healthy, `counts equal a recount: ${JSON.stringify(d)}`);
  t.close();
});

Deno.test("counts a previous release wrote last: no chunks until this one has written them a while", async () => {
  const c: Counts = { ...EMPTY_COUNTS };
  assertEquals(mayLog(c, 50_000), false, "never written by this release");
  assertEquals(c.logSince, 50_000, "noted now");
  assertEquals(mayLog(c, 55_000), false, "five seconds on");
  assertEquals(mayLog(c, 60_000), true, "ten seconds on");

  const real = await Deno.openKv(":memory:");
  // Counts as a previous release writes them: without the field.
  const { logSince: _, ...old } = EMPTY_COUNTS;
  await real.set(keys.counts(Q), old);
  const tally = new KvTally();
  const { outs } = await crowd(real, tally);
  assertEquals(tally.byKind.get("logged"), undefined, "no chunk written");
  assertEquals(outs.length, CROWD + 1, "every join answered");
  const stored = (await real.get<Counts>(keys.counts(Q))).value!;
  assertEquals(stored.nextSeq - 1, CROWD + 1, "every join committed, 326 a commit");
  assert(stored.logSince > 0, "this release noted when it first wrote them");
  real.close();
});

/** Commits by what they write: joins handed over placed (their results), and all join commits. */
const relayKind = (w: Deno.KvKey[]) =>
  w.some((k) => k[0] === "jr") ? "placed-relayed" : w.some((k) => k[0] === "ji") ? "inbox" : "x";

Deno.test("instances hand plain joins to the turn holder: each placed once, every answer exact", async () => {
  const real = await Deno.openKv(":memory:");
  const tally = new KvTally();
  const apps = await Promise.all(
    [1, 2, 3, 4, 5].map((seed) =>
      makeApp({ ADMIT_PER_SECOND: 1, CAPACITY: 1 }, {
        seed,
        kv: delayedKv(real, { readMs: 10, commitMs: 60, kind: relayKind }, tally),
      })
    ),
  );
  let missing = 0;
  const outs = await Promise.all(
    Array.from({ length: 600 }, async (_, i) => {
      await new Promise((r) => setTimeout(r, Math.floor(i / 3)));
      const o = await apps[i % apps.length].engine.join(Q, null);
      // Answered, so its record is there at once (a chunk is expanded before its answers).
      if (!(await real.get(keys.visitor(Q, readTicketUnverified(o.ticket).sub))).value) missing++;
      return o;
    }),
  );
  assertEquals(missing, 0, "every answered visitor's record was there when answered");
  const placed = tally.byKind.get("placed-relayed");
  assert(placed && placed.commits - placed.lost >= 1, "a commit placed joins handed over");
  const answers = outs.filter((o) => o.view.status === "waiting").map((o) => ({
    seq: readTicketUnverified(o.ticket).seq,
    position: o.view.position!,
  }));
  const c = withDefaults(EMPTY_COUNTS, (await real.get<Counts>(keys.counts(Q))).value);
  assertEquals(c.nextSeq - 1, 600, "every join placed once");
  assertEquals(wrongPositions(answers, c.admitted), 0, "every answer exact");
  const inbox = await Array.fromAsync(real.list({ prefix: keys.joinInboxPrefix(Q) }));
  assertEquals(inbox.length, 0, "nothing left in the inbox");
  const d = await diagnose(real, Q);
  assert(d.healthy, `counts equal a recount: ${JSON.stringify(d)}`);
  real.close();
});

Deno.test("a holder that stopped: the sender of the oldest handed-over joins takes them itself", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 1, CAPACITY: 0 });
  // Another instance of this release holds the turn and stops (it takes joins handed over).
  await t.kv.set(keys.counts(Q), heldBy("rstopped", 600));
  // Commits that take as long as a remote store's (joins are handed over only then).
  t.engine.ctx.turns.commitMs = 100;
  const out = await t.engine.join(Q, null);
  assertEquals(out.view.status, "waiting");
  assertEquals(out.view.position, 1, "placed, first in line");
  const c = (await t.kv.get<Counts>(keys.counts(Q))).value!;
  assertEquals(c.nextSeq - 1, 1, "placed once");
  assertEquals(c.turnBy, t.engine.ctx.turns.me, "this instance took the turn");
  const inbox = await Array.fromAsync(t.kv.list({ prefix: keys.joinInboxPrefix(Q) }));
  assertEquals(inbox.length, 0, "its record was taken by its own commit");
  const me = t.engine.ctx.turns.me;
  assert(await readResult(t.kv, Q, me, 0), "it was handed over, and answered from its result");
  t.close();
});

Deno.test("a previous release's turn: joins are not handed to it, they wait for the turn", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 1, CAPACITY: 0 });
  // A previous release names its instances with hex digits: it does not read the inbox.
  await t.kv.set(keys.counts(Q), { ...EMPTY_COUNTS, ...turnOf("0ldc0de1", 400) });
  t.engine.ctx.turns.commitMs = 100;
  const out = await t.engine.join(Q, null);
  assertEquals(out.view.position, 1, "placed once its turn lapsed");
  const inbox = await Array.fromAsync(t.kv.list({ prefix: keys.joinInboxPrefix(Q) }));
  assertEquals(inbox.length, 0, "nothing left in the inbox");
  const me = t.engine.ctx.turns.me;
  assertEquals(await readResult(t.kv, Q, me, 0), null, "nothing was handed over");
  t.close();
});

Deno.test("handed-over joins are placed once or not at all: taking a record back fails once placed", async () => {
  const kv = await Deno.openKv(":memory:");
  const a = await relay(kv, Q, "rsender1", 1, ["visitorA1"], Date.now() + 2000);
  assert(a, "handed over");
  assert(await withdraw(kv, a!), "taken back before any commit placed it");
  const b = await relay(kv, Q, "rsender1", 2, ["visitorB1"], Date.now() + 2000);
  const [entry] = await readInbox(kv, Q);
  assertEquals(entry.value.ids, ["visitorB1"]);
  // A commit places it: its check passes only while the record is as it was read.
  const op = kv.atomic();
  writeResult(op, Q, entry, { answers: [], joinedAt: 0, counts: EMPTY_COUNTS, chunks: [], max: 1 });
  assert((await op.commit()).ok, "placed");
  assertEquals(await withdraw(kv, b!), false, "no longer to take back");
  assert(await readResult(kv, Q, "rsender1", 2), "its result is there");
  kv.close();
});

Deno.test("more handed-over records than an op may check: taken over several commits, each once", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 1, CAPACITY: 0 });
  const senders = Array.from({ length: 120 }, (_, i) => `rsend${String(i).padStart(3, "0")}`);
  for (const [i, s] of senders.entries()) {
    assert(
      await relay(t.kv, Q, s, 0, [`handed${String(i).padStart(4, "0")}`], Date.now() + 60_000),
    );
  }
  // Another join commits (one with its own id: it is not handed over itself): it takes what its
  // op may check, and takes the rest right after.
  await t.engine.join(Q, null, "ownVisitor1");
  const deadline = Date.now() + 5000;
  while ((await readInbox(t.kv, Q)).length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
  }
  assertEquals((await readInbox(t.kv, Q)).length, 0, "every record taken");
  for (const s of senders) assert(await readResult(t.kv, Q, s, 0), `${s} answered`);
  const c = (await t.kv.get<Counts>(keys.counts(Q))).value!;
  assertEquals(c.nextSeq - 1, 121, "each placed once");
  t.close();
});

Deno.test("a record left by a sender that stopped blocks nobody: joins go on", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 1, CAPACITY: 0 });
  // Its sender stopped: its bound passed, nobody will take it back or wait for it.
  assert(await relay(t.kv, Q, "rstopped", 0, ["leftBehind1"], Date.now() - 1));
  t.engine.ctx.turns.commitMs = 100;
  const outs = await Promise.all([1, 2, 3].map(() => t.engine.join(Q, null)));
  assertEquals(outs.map((o) => o.view.status), ["waiting", "waiting", "waiting"]);
  const c = (await t.kv.get<Counts>(keys.counts(Q))).value!;
  assertEquals(c.nextSeq - 1, 3, "the three placed, the stale record not");
  t.close();
});

Deno.test("a chunk its writer left is expanded by the next tick: its waiters can lapse", async () => {
  const t = await makeApp({ ADMIT_PER_SECOND: 1, CAPACITY: 0 });
  const now = t.clock.now();
  const chunks: JoinChunk[] = [];
  addToChunk(chunks, waiter("leftAAAA1", 1, now, 20_000));
  const op = t.kv.atomic().set(keys.counts(Q), {
    ...EMPTY_COUNTS,
    nextSeq: 2,
    waiting: 1,
    logSince: 1,
  });
  writeChunks(op, Q, chunks);
  assert((await op.commit()).ok);
  // No admission reaches it (no capacity): only its age says its writer is gone.
  t.clock.advance(4000);
  await t.engine.tick(Q);
  assertEquals((await t.kv.get(keys.joinLog(Q, 1))).value, null, "expanded");
  const v = (await t.kv.get<Visitor>(keys.visitor(Q, "leftAAAA1"))).value!;
  assert(await t.kv.get(keys.deadline(Q, v.deadline, v.id)), "with its deadline entry");
  // Nobody checks in for it: it lapses like any waiter who left (after its grace, issue 32).
  await t.engine.updateSettings(Q, (s) => void (s.returnGraceSeconds = 30));
  t.clock.advance(60_000);
  await t.engine.tick(Q);
  const c = (await t.kv.get<Counts>(keys.counts(Q))).value!;
  assertEquals(c.waiting, 0, "dropped once its deadline passed");
  t.close();
});
