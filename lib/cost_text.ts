/**
 * The prose of the cost calculator (lib/cost.ts): what each KV term is, the formulas behind every
 * number and the notes on the model. Words only; the numbers live in lib/cost.ts.
 */
import type { CostInputs, DEPLOY_PRICING, ModeEstimate } from "./cost.ts";
import { STATUS_BUDGET_PER_SECOND } from "./queue/timeslot.ts";

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");

/**
 * What each KV term is, read off lib/queue/*.ts (one read unit per key read, one write unit per
 * key set, deleted or summed), for `joinsPerCommit` joins per group commit and `numbered` joins per
 * numbering commit.
 */
export function kvWhy(joinsPerCommit: number, numbered: number) {
  return {
    joins:
      "POST /join, per visitor: its record, its arrival entry (the record again, for the sequencer) and its liveness-deadline index entry, all in the group commit",
    numbering:
      "the tick's sequencer, per visitor: list its arrival entry; write its record with its arrival number and its line entry, delete its arrival entry",
    numberingCommit:
      `per numbering commit (${numbered} joins): read the counts and settings; write the counts and take the joins off the sum of joins not numbered yet`,
    heartbeat:
      "POST /heartbeat: read the visitor; write its record and move its liveness-deadline index entry (delete + set)",
    admission:
      "the admission tick, per admitted visitor: read its arrival-order entry and its record; delete both index entries, write the record and an expiry index entry",
    entry:
      "the status at which a visitor learns of its admission (its last check-in): read the visitor and the counts; write the record, the counts and move the expiry entry (delete + set)",
    release:
      "the tick frees the slot when the access token expires: read the expiry entry and the record; delete both",
    background:
      "each second while the line exists, per instance (one assumed): the cached queue view (settings, counts, head of line, departures, branding) and the admission tick (counts, settings; writes counts and traffic)",
    adaptive: {
      commit:
        `per group commit (assumed ${joinsPerCommit} joins each under sale load; up to 150 fit): nothing read; sum the joins not numbered yet, the traffic counter and the check-in ledger`,
      checkIn:
        "a due status while still waiting: read the visitor; write its record, move its liveness-deadline index entry (delete + set) and sum its next second into the check-in ledger. A status before its timeslot is answered from memory (0 reads, 0 writes); the built-in page never sends one",
      ledger:
        "each instance re-reads the check-in ledger once a second: one entry per booked second ahead, about ceil(waiting / 750) of them, half the peak on average as the line drains",
    },
    fixed: {
      commit:
        `per group commit (assumed ${joinsPerCommit} joins each under sale load; up to 150 fit): nothing read; sum the joins not numbered yet and the traffic counter (fixed polling books no ledger seconds)`,
      checkIn:
        "a due status while still waiting: read the visitor; write its record and move its liveness-deadline index entry (delete + set). Every fixed poll is due: each one sets the next timeslot one interval ahead",
      ledger: "the once-a-second ledger read finds nothing with fixed polling (one unit assumed)",
    },
  };
}

/** The formulas behind every number, written out. */
export const FORMULAS = {
  periodSeconds: "pollIntervalSeconds; default adaptive max(5, ceil(visitors / 750)), fixed 15 ",
  checkInsPerVisitor:
    "max(1, averageWaitSeconds / periodSeconds): one status per period of waiting, at least the one that learns of the admission",
  heartbeatsPerVisitor:
    "fixed: averageWaitSeconds / heartbeatIntervalSeconds (0 when the interval is 0); adaptive: 0",
  joinRequests: "visitors",
  statusRequests: "visitors × checkInsPerVisitor",
  heartbeatRequests: "visitors × heartbeatsPerVisitor",
  totalRequests: "joinRequests + statusRequests + heartbeatRequests",
  eventSeconds: "2 × averageWaitSeconds: everyone is in line at once and admitted at an even pace",
  admissionsPerSecond: "visitors / eventSeconds",
  lineCheckInsPerSecond: "visitors / periodSeconds (adaptive: at most 750 by construction)",
  peakStatusPerSecond:
    "adaptive: max(lineCheckInsPerSecond, admissionsPerSecond); fixed: lineCheckInsPerSecond",
  peakRequestsPerSecond: "peakStatusPerSecond + visitors / heartbeatIntervalSeconds",
  kvReads: "Σ over kv.terms of count × readsEach",
  kvWrites: "Σ over kv.terms of count × writesEach",
  monthlyUsd:
    "base + max(0, totalRequests − included) / 1e6 × usdPerMillion + the same for kvReads and kvWrites",
  savings: "fixed − adaptive, number by number",
} as const;

/** Notes on the model, the prices used and these inputs. */
export function notes(
  inputs: CostInputs,
  a: ModeEstimate,
  pricing: typeof DEPLOY_PRICING,
): string[] {
  const out = [
    "Model: all visitors are in line at once (the line at its longest, as the default period assumes) and are admitted at an even pace over 2 × averageWaitSeconds; each check-in period is held at its value for that longest line.",
    `Prices: ${pricing.plan} as published in ${pricing.asOf} (written from memory, not re-checked; Deno has changed its plans since), an assumption: check ${pricing.source}. visitors are counted as one month's traffic.`,
    "Not counted: loading the /wait page and its script, the protected site's own traffic, bandwidth, CPU time and KV storage. Queue mode with click-to-enter off is assumed.",
  ];
  if (a.perSecond.admissions > STATUS_BUDGET_PER_SECOND) {
    out.push(
      `Admitting ${fmt(inputs.visitors)} visitors within about ${
        fmt(2 * inputs.averageWaitSeconds)
      } s means ${
        fmt(a.perSecond.admissions)
      } admissions a second, more than the 750/s status budget: each admitted visitor checks in once to learn of it, and in queue mode the service moves that check-in to the predicted admission, so adaptive status traffic follows the admission rate, not the budget, while admissions outpace it.`,
    );
  }
  if (inputs.pollingMode === "adaptive" && inputs.heartbeatIntervalSeconds > 0) {
    out.push("heartbeatIntervalSeconds is unused in adaptive mode: check-ins keep waiters alive.");
  }
  return out;
}
