/**
 * The places scenario's pieces (bench/scenarios/places*.ts): its checks pass on a run where
 * nothing went wrong and each fails on the fault it is there to catch; the plan has the issue's
 * shares; the server-side commit tally labels a real engine's commits as the checks read them.
 * In-process and quick; the scenario itself runs in bench/load_smoke_test.ts (`--quick`).
 */
import { parseArgs } from "./load_scenarios.ts";
import { CommitTally } from "./scenarios/commit_tally.ts";
import { countingKv } from "./counting_kv.ts";
import { placesChecks, type PlacesFacts } from "./scenarios/places_checks.ts";
import { planPlaces, type VisitorOutcome } from "./scenarios/places_plan.ts";
import { assert, assertEquals } from "../testing/assert.ts";
import { makeApp } from "../testing/app.ts";

const T = 1_800_000_000_000;

/** A run where every visitor kept its place, as the checks want it. */
function goodRun(): PlacesFacts {
  const o = parseArgs([]).places;
  const v = (x: Partial<VisitorOutcome> & Pick<VisitorOutcome, "kind" | "id">): VisitorOutcome => ({
    joinedAt: T,
    lost: false,
    ...x,
  });
  const admitted = (seq: number, at: number) => ({
    seq,
    admittedAt: T + at,
    deadlineAtAdmission: T + at + 30_000,
    learnedAt: T + at + 500,
  });
  const visitors = [
    v({ kind: "plain", id: "p1", ...admitted(1, 1000) }),
    // Silent from 2 s to 122 s; p3 behind it went in meanwhile; it went in at the next tick.
    v({
      kind: "silent",
      id: "s2",
      ...admitted(2, 123_200),
      silentFrom: T + 2000,
      returnAt: T + 122_100,
      returnState: "waiting",
    }),
    v({ kind: "plain", id: "p3", ...admitted(3, 20_000) }),
    v({
      kind: "move",
      id: "m4",
      ...admitted(4, 21_000),
      movedAt: T + 5000,
      oldTold: true,
      oldAdmitted: false,
    }),
    v({
      kind: "leave",
      id: "l5",
      leftAt: T + 3000,
      dropDueAt: T + 160_000,
      droppedAt: T + 160_900,
    }),
    v({
      kind: "mail",
      id: "e6",
      ...admitted(6, 22_000),
      mailAsked: true,
      mailAddress: "e6@example.test",
      silentFrom: T + 4000,
      returnState: "admitted",
      mailArrivedAt: T + 23_000,
      resumedByMail: true,
      returnAt: T + 23_100,
    }),
  ];
  const plain = { join: 1, number: 1, admit: 1, enter: 1, remove: 1 };
  return {
    options: o,
    visitors,
    maxHeld: o.capacity,
    abandoned: 1,
    mails: { "e6@example.test": 1 },
    commits: {
      commits: 30,
      shared: 3,
      visitors: {
        p1: plain,
        s2: plain,
        p3: plain,
        m4: { ...plain, code: 1, move: 1 },
        l5: { join: 1, number: 1, remove: 1 },
        e6: { ...plain, mailAsk: 1, mailSent: 1, move: 1 },
      },
    },
  };
}

const failing = (f: PlacesFacts) =>
  placesChecks(f).filter((c) => c.pass === false).map((c) => c.name);

Deno.test("places checks: a run with nothing wrong passes every target", () => {
  assertEquals(failing(goodRun()), []);
});

Deno.test("places checks: each fault fails its own target", () => {
  const cases: [string, (f: PlacesFacts) => void][] = [
    ["places lost", (f) => void (f.visitors[0].lost = true)],
    // Someone newer let in by the tick after the return, before the one back.
    ["newer arrivals let in", (f) =>
      void f.visitors.push({
        kind: "plain",
        id: "p9",
        joinedAt: T,
        lost: false,
        seq: 9,
        admittedAt: T + 123_100,
        deadlineAtAdmission: T + 200_000,
        learnedAt: T + 123_500,
      })],
    ["knew was silent", (f) => void (f.visitors[0].deadlineAtAdmission = T + 500)],
    ["leavers freed", (f) => void (f.visitors[4].droppedAt = T + 150_000)],
    ["leavers freed", (f) => void (f.abandoned = 0)],
    ["first device told", (f) => void (f.visitors[3].oldAdmitted = true)],
    ["admissions in any", (f) => {
      for (let i = 0; i < 70; i++) {
        f.visitors.push({
          kind: "plain",
          id: `x${i}`,
          joinedAt: T,
          lost: false,
          admittedAt: T,
          learnedAt: T,
        });
      }
    }],
    ["most slots held", (f) => void (f.maxHeld = f.options.capacity + 1)],
    ["per plain visitor", (f) => void (f.commits!.visitors.p1.admit = 2)],
    ["per plain visitor", (f) => void (f.commits!.visitors.p3.number = 2)],
    ["per move", (f) => void (f.commits!.visitors.m4.code = 2)],
    ["its link brought them back", (f) => {
      f.visitors[5].resumedByMail = false;
      delete f.commits!.visitors.e6.move;
    }],
    ["its link brought them back", (f) => void (f.mails!["e6@example.test"] = 2)],
    ["per e-mail", (f) => void (f.commits!.visitors.e6.mailSent = 2)],
  ];
  for (const [name, spoil] of cases) {
    const f = goodRun();
    spoil(f);
    const failed = failing(f);
    assert(failed.length === 1 && failed[0].includes(name), `${name}: failed ${failed}`);
  }
});

Deno.test("places plan: the issue's shares, disjoint, seeded, each moment within the wait", () => {
  const o = parseArgs([]).places;
  const plan = planPlaces(o);
  const count = (k: string) => plan.filter((p) => p.kind === k).length;
  assertEquals([plan.length, count("silent"), count("move"), count("leave"), count("mail")], [
    1000,
    200,
    50,
    50,
    50,
  ]);
  assertEquals(planPlaces(o), plan, "the same seed, the same plan");
  for (const [i, p] of plan.entries()) {
    const wait = Math.max(0, i / o.rate - p.joinAtSec);
    assert(p.actAfterSec >= 2 && p.actAfterSec <= Math.max(2, wait - 1), `moment of ${i}`);
  }
});

Deno.test("commit tally: a real engine's join, numbering, admission and entry, one each", async () => {
  const tally = new CommitTally();
  const t = await makeApp({ ADMIT_PER_SECOND: 10, CAPACITY: 100 }, {
    kv: countingKv(await Deno.openKv(":memory:"), tally),
  });
  const q = "default";
  try {
    await t.engine.setPaused(q, true);
    const j = await t.engine.join(q, null, "v1");
    t.clock.advance(1000);
    await t.engine.tick(q); // numbered
    await t.engine.setPaused(q, false);
    t.clock.advance(1000);
    await t.engine.tick(q); // admitted
    const ticket = (await t.services.signer.verifyTicket(j.ticket))!;
    assertEquals((await t.engine.status(q, ticket)).view.status, "admitted"); // entered
    assertEquals(tally.visitors.get("v1"), { join: 1, number: 1, admit: 1, enter: 1 });
  } finally {
    t.close();
  }
});
