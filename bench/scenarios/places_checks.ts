/**
 * The places scenario's targets (issue 32, "Shown by"), computed from what happened to each
 * visitor: nobody loses a place; a silent visitor whose turn passed goes in before anyone newer
 * once it is back; the leavers' places are freed after the grace; no slot goes to a waiter the
 * room knows is silent, the rate and the capacity are kept; and the KV commits per visitor.
 * Pure functions of the report, so bench/load_smoke_test.ts can show each check fail.
 */
import { type Check, f0 } from "./checks.ts";
import type { CommitLabel, TallyFile } from "./commit_tally.ts";
import type { PlacesOptions, VisitorOutcome } from "./places_plan.ts";

/** The parts of the report the checks read. */
export interface PlacesFacts {
  options: PlacesOptions;
  visitors: VisitorOutcome[];
  maxHeld: number;
  abandoned: number;
  mails: Record<string, number> | null;
  commits: TallyFile | null;
}

/** True when someone newer than `r` was admitted before `r` came back: its turn had passed. */
function turnPassed(r: VisitorOutcome, admitted: VisitorOutcome[]): boolean {
  return r.seq !== undefined &&
    admitted.some((v) => v.seq! > r.seq! && v.admittedAt! < r.returnAt!);
}

const admittedOf = (vs: VisitorOutcome[]) =>
  vs.filter((v) => v.admittedAt !== undefined && v.seq !== undefined);

/** Away visitors still waiting when they came back whose turn had passed meanwhile. */
export function passedWhileSilent(vs: VisitorOutcome[]) {
  const admitted = admittedOf(vs);
  return vs.filter((r) => r.returnState === "waiting" && turnPassed(r, admitted)).map((r) => {
    const backSec = Math.floor(r.returnAt! / 1000);
    const inSec = r.admittedAt === undefined ? Infinity : Math.floor(r.admittedAt / 1000);
    // Newer arrivals let in by a tick after the one running at its return, before it.
    const overtaken = admitted.filter((v) =>
      v.seq! > r.seq! && Math.floor(v.admittedAt! / 1000) > backSec &&
      v.admittedAt! < (r.admittedAt ?? Infinity)
    ).length;
    return { id: r.id, ticks: inSec - backSec, overtaken };
  });
}

/** The most admissions in any `windowSec` whole seconds. */
export function mostAdmitted(vs: VisitorOutcome[], windowSec: number): number {
  const secs = vs.filter((v) => v.admittedAt !== undefined).map((v) =>
    Math.floor(v.admittedAt! / 1000)
  ).sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; j < secs.length; j++) {
    while (secs[j] - secs[i] >= windowSec) i++;
    most = Math.max(most, j - i + 1);
  }
  return most;
}

/**
 * Commits per visitor of `kind` let in through the line, besides check-ins: join, admission and
 * entry (the issue's three), and apart from them the sequencer's numbering (0.8) and the release
 * of the slot when the token expired (a tick's batch), each the most any such visitor wrote.
 */
export function commitsOf(f: PlacesFacts, kind: VisitorOutcome["kind"]) {
  const out = { visitors: 0, max: 0, mean: 0, numbering: 0, release: 0, other: 0 };
  if (!f.commits) return out;
  for (const v of f.visitors) {
    const t = f.commits.visitors[v.id];
    // Those let in at their join (nobody waiting yet) wrote one commit for all three.
    if (v.kind !== kind || v.lost || !v.learnedAt || !t || !t.admit) continue;
    const n = (t.join ?? 0) + t.admit + (t.enter ?? 0);
    out.visitors++;
    out.max = Math.max(out.max, n);
    out.mean += n;
    out.numbering = Math.max(out.numbering, t.number ?? 0);
    out.release = Math.max(out.release, t.remove ?? 0);
    out.other = Math.max(out.other, t.other ?? 0);
  }
  out.mean /= Math.max(1, out.visitors);
  return out;
}

/** The most commits of `label` any visitor wrote per time it did the thing. */
function perAction(f: PlacesFacts, label: CommitLabel, times: (v: VisitorOutcome) => number) {
  let most = 0, total = 0;
  for (const v of f.visitors) {
    const n = f.commits?.visitors[v.id]?.[label] ?? 0;
    const k = times(v);
    total += n;
    if (k > 0) most = Math.max(most, n / k);
    else if (n > 0) most = Infinity;
  }
  return { most, total };
}

/** "101 silent, 13 mail": how many of each kind. */
function byKind(vs: VisitorOutcome[]): string {
  const n = new Map<string, number>();
  for (const v of vs) n.set(v.kind, (n.get(v.kind) ?? 0) + 1);
  return [...n].map(([k, c]) => `${f0(c)} ${k}`).join(", ");
}

/** The targets, evaluated. */
export function placesChecks(f: PlacesFacts): Check[] {
  const o = f.options, vs = f.visitors;
  const stayed = vs.filter((v) => v.kind !== "leave");
  const notJoined = vs.filter((v) => !v.id).length;
  const lost = stayed.filter((v) => v.id && (v.lost || !v.learnedAt));
  const silent = vs.filter((v) => v.kind === "silent");
  const passed = passedWhileSilent(vs);
  const overtaken = passed.reduce((n, p) => n + p.overtaken, 0);
  const ticks = passed.map((p) => p.ticks).sort((a, b) => a - b);
  // Admitted while the room knew it was silent (past its liveness deadline): a wasted slot.
  const knownSilent =
    vs.filter((v) =>
      v.admittedAt !== undefined && v.deadlineAtAdmission !== undefined &&
      // 0: let in at its join, never in line.
      v.deadlineAtAdmission > 0 && v.admittedAt > v.deadlineAtAdmission
    ).length;
  // Admitted in the first part of a silence, before the room could know (2 periods + 30 s).
  const early = silent.filter((v) => v.returnState === "admitted" || v.returnState === "gone");
  // Those let in before their moment to leave came went in: not leavers.
  const leavers = vs.filter((v) => v.kind === "leave" && v.id && !v.learnedAt);
  const dropped = leavers.filter((v) => v.admittedAt === undefined);
  // A tick runs every second of the wall clock (and with requests), the driver reads every
  // server second: late by up to 2 s and a wall second of server time.
  const lateMs = 2000 + 1000 * o.clockSpeed;
  const onTime = dropped.filter((v) =>
    v.droppedAt !== undefined && v.dropDueAt !== undefined &&
    v.droppedAt >= v.dropDueAt - 1000 && v.droppedAt <= v.dropDueAt + lateMs
  ).length;
  const freedAfterHold = leavers.filter((v) => v.admittedAt !== undefined && v.droppedAt);
  const moved = vs.filter((v) => v.movedAt !== undefined);
  const window = 10, allowed = o.rate * window + 2 * o.rate;
  const plain = commitsOf(f, "plain");
  const code = perAction(f, "code", (v) => v.movedAt !== undefined ? 1 : 0);
  // The e-mail's link moves the place too (to the mail app's browser).
  const move = perAction(
    f,
    "move",
    (v) => (v.movedAt !== undefined ? 1 : 0) + (v.resumedByMail ? 1 : 0),
  );
  const ask = perAction(f, "mailAsk", (v) => v.mailAsked ? 1 : 0);
  const sent = perAction(f, "mailSent", (v) => v.mailAsked ? 1 : 0);
  const asked = vs.filter((v) => v.mailAsked);
  // Its turn came while it was away: admitted meanwhile, or passed over (someone newer went in).
  const due = asked.filter((v) =>
    v.returnState !== "waiting" || turnPassed(v, admittedOf(vs)) || v.mailArrivedAt
  );
  const resumed = due.filter((v) => v.resumedByMail).length;
  const twice = asked.filter((v) => (f.mails?.[v.mailAddress!] ?? 0) > 1).length;
  // Admissions of visitors away (the room could not know yet): slot time nobody used, from the
  // admission (or the visitor's going away) to its return, or to the end of the hold.
  const idle = vs.filter((v) =>
    v.admittedAt !== undefined && (v.silentFrom ?? v.leftAt) !== undefined &&
    v.admittedAt < (v.returnAt ?? Infinity) &&
    (v.learnedAt ?? Infinity) > (v.silentFrom ?? v.leftAt)!
  ).map((v) => {
    const from = Math.max(v.admittedAt!, (v.silentFrom ?? v.leftAt)!);
    const end = v.returnState === "admitted" ? v.returnAt! : v.holdUntil ?? from;
    return Math.max(0, end - from) / 1000;
  });
  const checks: Check[] = [
    {
      name: "places lost (told 404, or never let in) of those who did not leave",
      measured: `${f0(lost.length)} of ${f0(stayed.length)}` +
        (lost.length ? ` (${byKind(lost)})` : "") +
        (notJoined ? `; ${f0(notJoined)} joins refused` : ""),
      target: "0",
      pass: lost.length === 0 && notJoined === 0,
    },
    {
      name: "silent, back after their turn: newer arrivals let in after the return, before them",
      measured: `${f0(overtaken)} (${f0(passed.length)} such visitors; ticks from the return ` +
        `to admission: ${
          ticks.length ? `p50 ${ticks[ticks.length >> 1]}, max ${ticks.at(-1)}` : "-"
        })`,
      target: "0 (let in by the first tick after the return)",
      pass: overtaken === 0 && ticks.every((t) => Number.isFinite(t)),
    },
    {
      name: "silent visitors admitted before the room could know they were silent",
      measured: `${f0(early.length)} of ${f0(silent.length)} (${
        f0(early.filter((v) => v.lost).length)
      } of them lost their place)`,
      target: "shown (no place lost)",
      pass: null,
    },
    {
      name: "slots held for visitors away before the room knew (no one used them)",
      measured: `${f0(idle.length)} admissions, ${f0(idle.reduce((a, b) => a + b, 0))} ` +
        `slot-seconds (hold ${o.holdSec} s)`,
      target: "shown",
      pass: null,
    },
    {
      name: "slots given to a waiter the room knew was silent",
      measured: f0(knownSilent),
      target: "0",
      pass: knownSilent === 0,
    },
    {
      name: "leavers freed after the grace (dropped, counted abandoned)",
      measured: `${f0(onTime)} of ${f0(dropped.length)} dropped 0 to ${lateMs / 1000} s after ` +
        `their grace; ` +
        `abandoned ${f0(f.abandoned)}; ${f0(freedAfterHold.length)} admitted before the room ` +
        "knew: their slot freed when their hold ended, their place kept until the grace",
      target: `all, abandoned = ${f0(leavers.length)} (every leaver)`,
      pass: onTime === dropped.length && f.abandoned === leavers.length &&
        freedAfterHold.length === leavers.length - dropped.length,
    },
    {
      name: "moved to another device: first device told, never let in",
      measured: `${f0(moved.filter((v) => v.oldTold).length)} of ${f0(moved.length)} told, ` +
        `${f0(moved.filter((v) => v.oldAdmitted).length)} let in`,
      target: "all told, 0 let in",
      pass: moved.length > 0 && moved.every((v) => v.oldTold && !v.oldAdmitted),
    },
    {
      name: `admissions in any ${window} s (rate ${o.rate}/s)`,
      measured: f0(mostAdmitted(vs, window)),
      target: `<= ${f0(allowed)} (${window} s of rate + the 2 s bucket)`,
      pass: mostAdmitted(vs, window) <= allowed,
    },
    {
      name: "most slots held at once (entered + holding, every second)",
      measured: f0(f.maxHeld),
      target: `<= ${f0(o.capacity)} (capacity)`,
      pass: f.maxHeld <= o.capacity,
    },
    {
      name: "KV commits per plain visitor besides check-ins (join, admission, entry)",
      measured: `max ${plain.max}, mean ${plain.mean.toFixed(2)} over ${f0(plain.visitors)}; ` +
        `apart: numbering ${plain.numbering}, release at expiry ${plain.release}, other ` +
        `${plain.other}`,
      target: "<= 3; apart: <= 1 each (the sequencer's and the tick's batches), 0 other",
      pass: plain.visitors > 0 && plain.max <= 3 && plain.numbering <= 1 &&
        plain.release <= 1 && plain.other === 0,
    },
    {
      name: "KV commits per move: code, then move (a move by the e-mail's link included)",
      measured: `${code.most}, ${move.most} (${f0(code.total + move.total)} for ${
        f0(moved.length)
      })`,
      target: "<= 1 each",
      pass: moved.length > 0 && code.most <= 1 && move.most <= 1,
    },
  ];
  if (f.mails === null) {
    checks.push({ name: "turn e-mail", measured: "skipped: no aiosmtpd", target: "-", pass: null });
    return checks;
  }
  checks.push(
    {
      name: "asked for the e-mail, then away: its link brought them back at their turn",
      measured: `${f0(resumed)} of ${f0(due.length)} whose turn came while away ` +
        `(MAIL_AT_POSITION ${o.mailAtPosition}; ${f0(asked.length - due.length)} of ` +
        `${f0(asked.length)} came back before it; ${f0(twice)} e-mailed twice)`,
      target: "all, none twice",
      pass: due.length > 0 && resumed === due.length && twice === 0,
    },
    {
      name: "KV commits per e-mail: request, then send",
      measured: `${ask.most}, ${sent.most}`,
      target: "<= 1 each",
      pass: asked.length > 0 && ask.most <= 1 && sent.most <= 1,
    },
  );
  return checks;
}
