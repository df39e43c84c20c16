/**
 * A tick's last commit among other writers, over real KV (one app whose store runs a hook before
 * each commit, a second app on the same store as the other instance): lost to another counts
 * writer, the tick reads only the counts again and sends the same changes; lost to a visitor
 * that changed, it reads everything again; a later round that finds no write keeps what the
 * first round admitted; a later round with nothing to do writes nothing.
 */
import { delayedKv, KvTally } from "../testing/delayed_kv.ts";
import { FakeClock } from "../lib/clock.ts";
import { tick, type TickResult } from "../lib/queue/tick.ts";
import { diagnose } from "../lib/queue/doctor.ts";
import { keys } from "../lib/store/keys.ts";
import { readTicketUnverified } from "../lib/tokens.ts";
import { type Counts, EMPTY_COUNTS, type Visitor, withDefaults } from "../lib/queue/types.ts";
import { assert, assertEquals } from "./assert.ts";
import { makeApp } from "./helpers.ts";

const Q = "default";

async function countsOf(kv: Deno.Kv): Promise<Counts> {
  return withDefaults(EMPTY_COUNTS, (await kv.get<Counts>(keys.counts(Q))).value);
}

async function visitorsOf(kv: Deno.Kv): Promise<Visitor[]> {
  const out: Visitor[] = [];
  for await (const e of kv.list<Visitor>({ prefix: keys.visitorPrefix(Q) })) out.push(e.value);
  return out.sort((a, b) => a.seq - b.seq);
}

/** Commits that write the counts record, told apart from the rest by their keys. */
const kind = (w: Deno.KvKey[]) => w.some((k) => k[0] === "counts" && k[1] === Q) ? "counts" : "x";

/**
 * `waiters` in line (joined while paused, so none is let in on joining) of an app `a` whose
 * store runs `hooks.beforeCommit` before each counts commit and notes the reads made by then
 * (`marks`); `other` is a second instance on the same store. The clock is 1.5 s on.
 */
async function line(config: { ADMIT_PER_SECOND: number; CAPACITY: number }, waiters: number) {
  const real = await Deno.openKv(":memory:");
  const clock = new FakeClock();
  const tally = new KvTally();
  const marks: number[] = [];
  const hooks: { beforeCommit?: () => Promise<void> } = {};
  const a = await makeApp(config, {
    clock,
    kv: delayedKv(real, {
      readMs: 0,
      commitMs: 0,
      kind,
      // Only the commits that write the counts (not the claim of the second before them).
      beforeCommit: async (written) => {
        if (kind(written) !== "counts") return;
        marks.push(tally.reads);
        await hooks.beforeCommit?.();
      },
    }, tally),
  });
  const other = await makeApp(config, { clock, kv: real });
  await a.engine.setPaused(Q, true);
  const tickets: string[] = [];
  for (let i = 0; i < waiters; i++) tickets.push((await a.engine.join(Q, null)).ticket);
  // Numbered already (what a tick does first): the ticks below only admit.
  await a.engine.sequence(Q);
  await a.engine.setPaused(Q, false);
  clock.advance(1500);
  marks.length = 0;
  const sec = Math.floor(clock.now() / 1000);
  /** Runs the tick (the function itself: the engine's draws and observers would add reads). */
  const run = async () => {
    const reads = tally.reads, commits = tally.commits, lost = tally.lost;
    const countsCommits = tally.byKind.get("counts")?.commits ?? 0;
    const r = await tick(a.engine.ctx, Q);
    return {
      r,
      reads: tally.reads - reads,
      commits: tally.commits - commits,
      lost: tally.lost - lost,
      countsCommits: (tally.byKind.get("counts")?.commits ?? 0) - countsCommits,
      /** Reads between the tick's first commit and its second. */
      between: marks.length >= 2 ? marks[1] - marks[0] : null,
    };
  };
  return { real, clock, tally, hooks, marks, a, other, tickets, sec, run };
}

/** The queue's counts and records agree with the tick's result and each other. */
async function assertExact(
  real: Deno.Kv,
  r: TickResult,
  before: Counts,
  joinedSince = 0,
  leftSince = 0,
) {
  const c = await countsOf(real);
  const vs = await visitorsOf(real);
  const admitted = vs.filter((v) => v.state === "admitted");
  assertEquals(admitted.length, r.admitted, "each admission once");
  assertEquals(c.admitted, before.admitted + r.admitted, "admissions counted once");
  assertEquals(c.holding, before.holding + r.admitted);
  assertEquals(
    c.waiting,
    before.waiting + joinedSince - leftSince - r.admitted,
    "waiting count exact",
  );
  assertEquals(vs.filter((v) => v.state === "waiting").length, c.waiting);
  assertEquals(c.nextSeq, before.nextSeq + joinedSince);
  assertEquals(r.waiting, c.waiting, "the result says the counts as left");
  // First come, first admitted: the admitted are the front of the line.
  assertEquals(admitted.map((v) => v.seq), vs.slice(0, r.admitted).map((v) => v.seq));
  const d = await diagnose(real, Q);
  assert(d.healthy, `counts equal a recount: ${JSON.stringify(d)}`);
}

Deno.test("a tick lost to another counts writer (a leave) reads only the counts again and lands", async () => {
  // The same line, ticked without a rival: what the tick reads when nothing gets in its way. (A
  // join is no rival since 0.8.0: joins write only their own records.) The first tick's budget
  // is one second's: 3.
  const calm = await line({ ADMIT_PER_SECOND: 3, CAPACITY: 100 }, 8);
  const plain = await calm.run();
  assert(plain.r.ran && plain.r.admitted === 3, `the calm tick: ${JSON.stringify(plain.r)}`);
  assertEquals(plain.lost, 0);
  calm.real.close();

  const t = await line({ ADMIT_PER_SECOND: 3, CAPACITY: 100 }, 8);
  const before = await countsOf(t.real);
  let left = 0;
  // Just before the tick's commit (after its last counts read), the last waiter leaves through
  // the other instance.
  const last = readTicketUnverified(t.tickets[7]);
  t.hooks.beforeCommit = async () => {
    if (left++ === 0) await t.other.engine.leave(Q, last, last.sub);
  };
  const out = await t.run();
  t.hooks.beforeCommit = undefined;
  assert(left >= 2, "the leave landed before the tick's commit, and the tick committed again");
  assertEquals(out.lost, 1, "one commit lost to the leave");
  assert(out.r.ran, `the tick ran: ${JSON.stringify(out.r)}`);
  assertEquals(out.r.admitted, plain.r.admitted, "as many admitted as without the rival");
  assertEquals((await countsOf(t.real)).tickAt, t.sec, "the second's tick recorded");
  // Only the counts read again between the lost commit and the one that landed: a full re-read
  // is the counts and settings, the expiry and deadline lists, the line, the visitors (6 here).
  assertEquals(out.between, 1, "one read between the lost commit and the next");
  const extra = out.reads - plain.reads;
  assert(extra >= 1 && extra <= 2, `${extra} reads more than the calm tick's ${plain.reads}`);
  await assertExact(t.real, out.r, before, 0, 1);
  t.real.close();
});

Deno.test("a tick lost to a visitor's check-in reads everything again and admits exactly", async () => {
  const t = await line({ ADMIT_PER_SECOND: 3, CAPACITY: 100 }, 8);
  const before = await countsOf(t.real);
  const first = readTicketUnverified(t.tickets[0]);
  let checkedIn: Visitor | null = null;
  let commits = 0;
  // The head of the line checks in through the other instance just before the tick's commit:
  // the counts stay as they were, but a visitor record the tick read (and checks) changed.
  t.hooks.beforeCommit = async () => {
    if (commits++ > 0) return;
    await t.other.engine.status(Q, first);
    checkedIn = (await t.real.get<Visitor>(keys.visitor(Q, first.sub))).value;
  };
  const out = await t.run();
  t.hooks.beforeCommit = undefined;
  assert(checkedIn, "the check-in landed before the tick's commit");
  const seen: Visitor = checkedIn;
  assertEquals(before.nextSeq, (await countsOf(t.real)).nextSeq, "the check-in wrote no counts");
  // Counts unchanged: the same commit is not sent again (it would lose again) but read afresh.
  assertEquals(out.lost, 1, "one commit lost, none sent again unchanged");
  assert(out.between! >= 5, `a full re-read before the next commit: ${out.between} reads`);
  assert(out.r.ran && out.r.admitted === 3, `the tick ran: ${JSON.stringify(out.r)}`);
  await assertExact(t.real, out.r, before);
  // Admitted from its record as the check-in left it: the hold starts at its next check-in.
  const now = t.clock.now();
  const branding = await t.a.engine.ctx.branding(Q);
  const v = (await t.real.get<Visitor>(keys.visitor(Q, first.sub))).value!;
  assertEquals(v.state, "admitted");
  let hold = Math.max(now, seen.nextCheckAt) + branding.admitHoldSeconds * 1000;
  if (!branding.clickToEnter) hold = Math.max(hold, seen.deadline);
  assertEquals(v.until, hold, "the hold follows the checked-in record");
  t.real.close();
});

Deno.test("a later round that finds no write keeps the first round's admissions", async () => {
  const t = await line({ ADMIT_PER_SECOND: 1000, CAPACITY: 1000 }, 120);
  const before = await countsOf(t.real);
  // Once the first round has landed (the second claimed), every later commit of the tick loses:
  // another writer rewrites the counts record (unchanged, so it stays valid) just before it.
  let rivals = 0;
  t.hooks.beforeCommit = async () => {
    const e = await t.real.get<Counts>(keys.counts(Q));
    if ((e.value?.tickAt ?? 0) < t.sec) return;
    rivals++;
    await t.real.set(keys.counts(Q), e.value);
  };
  const started = Date.now();
  const out = await t.run().catch((e) => e);
  t.hooks.beforeCommit = undefined;
  assert(!(out instanceof Error), `the tick did not throw: ${out}`);
  assert(Date.now() - started < 6000, "the later round gave up within the store's deadline");
  // The second round has 40 to admit, so it sends its commit (which loses, again and again).
  assert(rivals >= 2 && out.lost >= 2, `a later round sent commits that lost: ${out.lost}`);
  assert(out.r.ran, `the tick ran: ${JSON.stringify(out.r)}`);
  // The first round admits a chunk (80 visitors; at least 40 starts a later round).
  assertEquals(out.r.admitted, 80, "the first round's admissions");
  assertEquals((await countsOf(t.real)).tickAt, t.sec);
  await assertExact(t.real, out.r, before);
  t.real.close();
});

Deno.test("a later round with nothing left to do writes nothing", async () => {
  const t = await line({ ADMIT_PER_SECOND: 1000, CAPACITY: 1000 }, 60);
  const before = await countsOf(t.real);
  const stamp = (await t.real.get(keys.counts(Q))).versionstamp;
  const out = await t.run();
  // All 60 in the first round (at least 40 starts a later round, which finds nobody left).
  assert(out.r.ran && out.r.admitted === 60, `the tick ran: ${JSON.stringify(out.r)}`);
  assertEquals(out.countsCommits, 1, "one commit of the counts for the tick");
  assertEquals(out.lost, 0);
  assert((await t.real.get(keys.counts(Q))).versionstamp !== stamp, "the tick's commit landed");
  await assertExact(t.real, out.r, before);
  t.real.close();
});

Deno.test("a tick at a high rate admits past one round's chunk in its later rounds", async () => {
  const t = await line({ ADMIT_PER_SECOND: 1000, CAPACITY: 1000 }, 120);
  const before = await countsOf(t.real);
  const out = await t.run();
  // A round admits at most a chunk (80); the rest of the second's budget goes in later rounds.
  assert(out.r.ran, `the tick ran: ${JSON.stringify(out.r)}`);
  assertEquals(out.r.admitted, 120, "everyone waiting admitted in the second");
  assertEquals(out.countsCommits, 2, "two rounds, one commit each");
  await assertExact(t.real, out.r, before);
  t.real.close();
});
