/** How each scenario measured what it shows: the notes under its block in RESULTS.md. */
import type { SessionsReport } from "./sessions.ts";
import { attackNotes, type AttackRunReport } from "./attack_run.ts";
import { f0 } from "./checks.ts";
import type { FlashReport } from "./flash.ts";
import type { LineReport } from "./line.ts";
import type { Scenario } from "./markdown.ts";
import type { MixedReport } from "./mixed.ts";
import type { PlacesReport } from "./places.ts";

function flashNotes(r: FlashReport): string[] {
  const o = r.options;
  return [
    `${f0(o.joins)} \`POST /join\` (new visitors, no cookie) over ${o.connections} keep-alive ` +
    `connections, each sending its next join when the last one answered, so joins/s is what ` +
    `the server takes; ${f0(r.admittedAtJoin)} were admitted at once (nobody waiting yet), ` +
    `${f0(r.waitingAfterJoins)} waited after the last join (per /metrics).`,
    `Server: ADMIT_PER_SECOND=${o.rate}, CAPACITY=10,000,000 (the rate alone drains the line), ` +
    `MAX_WAITING_VISITORS=${f0(o.maxWaiting)}.`,
    "Every waiter followed its timeslots from its join on (`GET /status` at each answer's " +
    "`nextCheckAt`, with the ticket it set) over 32 more connections, as the wait page does.",
    `Admissions per second: the records' \`admittedAt\` read from the KV file after the run, ` +
    `${f0(r.admissions.total)} in all (with those admitted while the joins ran), counted per ` +
    `whole second from the second after the last join to the last admission (left out: that ` +
    `partial second).`,
  ];
}

function lineNotes(r: LineReport): string[] {
  const o = r.options;
  return [
    `${f0(o.waiting)} waiters written straight into the KV file (bench/seed.ts, ` +
    `${f0(r.seed.keys)} keys in ${r.seed.seconds.toFixed(1)} s): each visitor's record, line ` +
    `and deadline entries and the check-in counts of its second, as join commits write them, ` +
    `every one scheduled by the engine's own \`schedule()\` as the newest in line, all joining ` +
    `just before the queue opens (its \`opensAt\`). The doctor found the seeded store ` +
    `${r.seed.doctor.healthy ? "healthy" : "NOT healthy"}. Seeding 1M through HTTP joins would ` +
    "take minutes of the run at the join rates measured here, and the result is the same data.",
    `The driver minted each visitor's \`tg_ticket\` with the server's TOKEN_SECRET and sent its ` +
    `status at its \`nextCheckAt\`, then at the \`nextCheckAt\` of each answer, over ` +
    `${o.connections} connections, until it was told \`admitted\`.`,
    `Simulated clock: the server ran with TOLLGATE_CLOCK_SPEED=${o.clockSpeed} (its clock ` +
    `${o.clockSpeed} times as fast as the wall clock from its start; refused in production), ` +
    `so ${f0(o.seconds)} server seconds took about ${
      f0(o.seconds / o.clockSpeed)
    } s. The check-in period of the line ` +
    `is ${f0(r.periodSec)} s: the window covers ${
      o.seconds > r.periodSec ? "a whole period and the first renewals" : "part of a period"
    }. ` +
    "All times here are server times; the driver computes them from the clock the server logs.",
    `Requests per second are counted per server second of their timeslot from the opening on; ` +
    `the driver sent them ${f0(r.lateMs.p50)} ms (p50) and ${f0(r.lateMs.p99)} ms (p99) of ` +
    `server time after their slot${
      r.lateStartSec > 0 ? `; it started ${r.lateStartSec.toFixed(1)} s late` : ""
    }.`,
    `Learning admission: for every followed visitor admitted at least 10 s before the end, the ` +
    `server time of the first answer that said \`admitted\` minus the record's \`admittedAt\` ` +
    `(read from the KV file after the run, ${f0(r.admitted)} records of admitted visitors).`,
  ];
}

function mixedNotes(r: MixedReport): string[] {
  const o = r.options;
  const s = r.doctor.stored;
  return [
    `${o.seconds} s of: ${o.joinRate} joins per second (sent on a timer, not waiting for ` +
    `answers), every waiter following its timeslots, ${
      Math.round(o.joinRate * o.leaveShare)
    } leaves per ` +
    `second (random idle waiters, every fifth an entered visitor), \`GET /metrics\` every ` +
    `second, and every ${o.operatorEverySec} s the next of: \`POST /admit\` 20, pause, ` +
    `resume, switch to lottery, switch to queue.`,
    `Server: ADMIT_PER_SECOND=${o.rate}, CAPACITY=${f0(o.capacity)}, ` +
    `ACCESS_TOKEN_TTL_SECONDS=${o.tokenTtlSec}, so slots fill, expire and free during the run.`,
    `At the end: ${f0(s.waiting)} waiting, ${f0(s.entered)} entered, ${f0(s.holding)} holding ` +
    `(the doctor's recount), ${f0(r.admittedTotal)} admitted in all.`,
  ];
}

/** The notes of one scenario's report. */
export function notesOf(name: Scenario, report: unknown): string[] {
  if (name === "flash") return flashNotes(report as FlashReport);
  if (name === "line") return lineNotes(report as LineReport);
  if (name === "attack") return attackNotes(report as AttackRunReport);
  if (name === "sessions") return sessionNotes(report as SessionsReport);
  if (name === "places") return placesNotes(report as PlacesReport);
  return mixedNotes(report as MixedReport);
}

function sessionNotes(r: SessionsReport): string[] {
  const o = r.options;
  return [
    `${o.visitors} visitors arriving evenly over ${o.arrivalSeconds} server s, measured over ` +
    `${o.hourSeconds} server s at TOLLGATE_CLOCK_SPEED=${o.clockSpeed}; capacity ${o.capacity}, ` +
    "10 admissions a second, tokens of 900 s. Session lengths log-normal (median 180 s, 10% " +
    `over 900 s, seed ${o.seed}); a request (\`/verify\`) every ${o.activeEverySec} s while ` +
    `active; ${Math.round(o.releaseShare * 100)}% released by \`POST /release\` at the end ` +
    `(in the release runs); sliding idle time ${o.idleSeconds} s.`,
    ...r.runs.map((x) =>
      `${x.name}: ${x.admitted} admitted, ${x.requests} requests (${x.errors} failed: ${
        Object.entries(x.errorsBy).map(([k, n]) => `${n} ${k}`).join(", ") || "none"
      }), ${x.lost} waiters lost their place, ` +
      `${x.cutOff} refused while active (in fixed mode every session longer than 900 s is)`
    ),
  ];
}

function placesNotes(r: PlacesReport): string[] {
  const o = r.options;
  const pc = (x: number) => `${Math.round(x * 100)}%`;
  return [
    `${f0(o.visitors)} visitors joining evenly over ${o.joinSeconds} server s and following ` +
    `their timeslots; at a random moment of each one's expected wait ${pc(o.silentShare)} go ` +
    `silent for ${o.silenceSec} s, then check in at once; ${pc(o.moveShare)} move their place ` +
    `to a second device (\`POST /resume/code\`, then \`POST /resume\` without a cookie; the ` +
    `first device checks in until told); ${pc(o.mailShare)} ask for the turn e-mail, then ` +
    `stop checking in until it arrives (or for ${o.silenceSec} s) and follow its link; ` +
    `${pc(o.leaveShare)} leave for good (seed ${o.seed}). TOLLGATE_CLOCK_SPEED=${o.clockSpeed}, ` +
    `${f0(r.seconds)} server s from the first join to the end.`,
    `Server: ADMIT_PER_SECOND=${o.rate}, CAPACITY=${o.capacity}, ` +
    `ACCESS_TOKEN_TTL_SECONDS=${o.tokenTtlSec} (slots free during the run, so capacity binds), ` +
    `\`returnGraceSeconds\` ${o.graceSec} (short, so leavers end within the run); e-mail through ` +
    (r.mails ? "Debian's aiosmtpd on loopback." : "nothing: aiosmtpd is not installed, skipped."),
    "Times are read from the KV file beside the running server: each visitor's record when it " +
    "learns its admission (`admittedAt`, its deadline, its arrival number), and every second the " +
    "records of the silent and the gone. A silent visitor's turn passed when someone newer was " +
    "admitted before it came back.",
    "KV commits counted inside the server process: main.ts ran with " +
    "`--preload bench/scenarios/commit_tally.ts`, which wraps the store it opens and labels each " +
    `commit by what it wrote (${f0(r.commits?.commits ?? 0)} commits, ` +
    `${f0(r.commits?.shared ?? 0)} of them writing no visitor's keys).`,
    `/metrics at the end: returned ${f0(r.returned)}, abandoned ${f0(r.abandoned)}; at most ` +
    `${f0(r.maxSilent)} silent at once. Store after the run: ` +
    (r.doctor.healthy ? "healthy (queue doctor)." : `NOT healthy: ${r.doctor.counterDiffs}`) +
    ` Server log error lines: ${r.serverErrors.count}.`,
  ];
}
