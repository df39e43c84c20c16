/**
 * The cost calculator: requests, KV reads and writes and the monthly Deno Deploy
 * bill of one sale, for adaptive timeslots and for fixed polling side by side. Pure functions;
 * every KV figure below is counted from what lib/queue/*.ts really does per operation.
 */
import { FORMULAS, kvWhy, notes } from "./cost_text.ts";
import { periodSeconds, STATUS_BUDGET_PER_SECOND } from "./queue/timeslot.ts";

/** How waiting visitors learn of their admission. */
export type PollingMode = "adaptive" | "fixed";
/** The polling modes, for validation. */
export const POLLING_MODES = ["adaptive", "fixed"] as const;

/** The calculator's inputs, defaults filled in. */
export interface CostInputs {
  visitors: number;
  averageWaitSeconds: number;
  pollingMode: PollingMode;
  pollIntervalSeconds: number;
  heartbeatIntervalSeconds: number;
}

/** The documented defaults of the inputs that do not depend on the others. */
export const COST_DEFAULTS = { visitors: 5_000_000, averageWaitSeconds: 900 } as const;

/** Sane bounds (inclusive) of each input; outside them the estimate means nothing. */
export const COST_LIMITS = {
  visitors: [1, 100_000_000],
  averageWaitSeconds: [1, 604_800],
  pollIntervalSeconds: [1, 1_000_000],
  heartbeatIntervalSeconds: [0, 3_600],
} as const;
/** Longest fixed interval the service accepts (`WAITING_ROOM_POLL_INTERVAL_MS` is at most 1 h). */
const FIXED_MAX_POLL_SECONDS = 3_600;
const FIXED_POLL_SECONDS = 15;
const FIXED_HEARTBEAT_SECONDS = 30;

/**
 * Deno Deploy prices used for the monthly cost. ASSUMPTION: the classic Deno Deploy Pro plan as
 * published on deno.com/deploy/pricing in 2024, written from memory (this code cannot browse);
 * Deno has changed its plans since. Check deno.com/deploy/pricing and edit this one constant.
 */
export const DEPLOY_PRICING = {
  plan: "Deno Deploy Pro",
  asOf: "2024",
  source: "https://deno.com/deploy/pricing",
  assumption: true,
  baseUsdPerMonth: 20,
  requests: { includedPerMonth: 5_000_000, usdPerMillion: 2 },
  /** A read unit is up to 4 KiB read from one key; every record here is far smaller. */
  kvReadUnits: { includedPerMonth: 1_300_000, usdPerMillion: 1, bytesPerUnit: 4096 },
  /** A write unit is up to 1 KiB written to one key (set, delete or sum). */
  kvWriteUnits: { includedPerMonth: 900_000, usdPerMillion: 2.5, bytesPerUnit: 1024 },
} as const;

/** Joins per group commit assumed under sale load (a commit holds up to 150). */
const JOINS_PER_COMMIT = 10;
/** Joins the sequencer numbers a commit (lib/queue/sequencer.ts SEQUENCE_CHUNK). */
const NUMBERED_PER_COMMIT = 290;
/** Seconds ahead the check-in ledger is read (lib/queue/checkins.ts HORIZON_SECONDS). */
const LEDGER_HORIZON_SECONDS = 4 * 3600;
const WHY = kvWhy(JOINS_PER_COMMIT, NUMBERED_PER_COMMIT);

/** The documented default of `pollIntervalSeconds`: adaptive max(5, ceil(visitors/750)), fixed 15. */
export function defaultPollIntervalSeconds(mode: PollingMode, visitors: number): number {
  return mode === "adaptive" ? periodSeconds(visitors) : FIXED_POLL_SECONDS;
}

/** The documented default of `heartbeatIntervalSeconds`: adaptive 0 (unused), fixed 30. */
function defaultHeartbeatIntervalSeconds(mode: PollingMode): number {
  return mode === "adaptive" ? 0 : FIXED_HEARTBEAT_SECONDS;
}

/** The calculator's inputs: the given ones, the documented defaults for the rest. */
export function costInputs(q: Partial<CostInputs>): CostInputs {
  const visitors = q.visitors ?? COST_DEFAULTS.visitors;
  const pollingMode = q.pollingMode ?? "adaptive";
  return {
    visitors,
    averageWaitSeconds: q.averageWaitSeconds ?? COST_DEFAULTS.averageWaitSeconds,
    pollingMode,
    pollIntervalSeconds: q.pollIntervalSeconds ?? defaultPollIntervalSeconds(pollingMode, visitors),
    heartbeatIntervalSeconds: q.heartbeatIntervalSeconds ??
      defaultHeartbeatIntervalSeconds(pollingMode),
  };
}

/**
 * Rules that span fields (each input alone is already in bounds); empty when all hold. Checked
 * only once the fields they read are numbers: a field that failed to parse has its own message.
 */
export function inputProblems(
  q: Partial<CostInputs>,
): { field: string; message: string; params: Record<string, number> }[] {
  const out: { field: string; message: string; params: Record<string, number> }[] = [];
  const p = q.pollIntervalSeconds;
  const visitors = q.visitors ?? COST_DEFAULTS.visitors;
  if (typeof p !== "number" || typeof visitors !== "number") return out;
  if ((q.pollingMode ?? "adaptive") === "fixed" && p > FIXED_MAX_POLL_SECONDS) {
    out.push({
      field: "pollIntervalSeconds",
      message: `a fixed poll interval is at most ${FIXED_MAX_POLL_SECONDS} s, got ${p}`,
      params: { maxSeconds: FIXED_MAX_POLL_SECONDS },
    });
  }
  if ((q.pollingMode ?? "adaptive") === "adaptive") {
    const min = periodSeconds(visitors);
    if (p < min) {
      out.push({
        field: "pollIntervalSeconds",
        message: `adaptive timeslots never check in more often than max(5, ceil(visitors / 750)) ` +
          `= ${min} s for ${visitors} visitors (the 750/s budget), got ${p}`,
        params: { minSeconds: min },
      });
    }
  }
  return out;
}

const REPEAT = "visitors × (checkInsPerVisitor − 1)";

const round = (n: number, digits = 0) => {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
};

/** One KV cost term: how many operations, and the reads and writes each one costs. */
function term(
  name: string,
  count: number,
  readsEach: number,
  writesEach: number,
  formula: string,
  explanation: string,
) {
  const c = round(count);
  return {
    name,
    count: c,
    readsEach,
    writesEach,
    reads: round(c * readsEach),
    writes: round(c * writesEach),
    formula,
    explanation,
  };
}

/** Usage above a quota, priced per million. */
function overage(used: number, quota: { includedPerMonth: number; usdPerMillion: number }) {
  return round((Math.max(0, used - quota.includedPerMonth) / 1e6) * quota.usdPerMillion, 2);
}

/** The monthly bill on the plan of `DEPLOY_PRICING` for these totals. */
function monthlyCost(requests: number, reads: number, writes: number) {
  const p = DEPLOY_PRICING;
  const requestsUsd = overage(requests, p.requests);
  const kvReadsUsd = overage(reads, p.kvReadUnits);
  const kvWritesUsd = overage(writes, p.kvWriteUnits);
  return {
    plan: p.plan,
    baseUsd: p.baseUsdPerMonth,
    requestsUsd,
    kvReadsUsd,
    kvWritesUsd,
    totalUsd: round(p.baseUsdPerMonth + requestsUsd + kvReadsUsd + kvWritesUsd, 2),
  };
}

/** Estimates one mode; the mode not chosen uses its own defaults. */
function estimateMode(inputs: CostInputs, mode: PollingMode) {
  const chosen = inputs.pollingMode === mode;
  const V = inputs.visitors, T = inputs.averageWaitSeconds;
  const P = chosen ? inputs.pollIntervalSeconds : defaultPollIntervalSeconds(mode, V);
  const given = chosen ? inputs.heartbeatIntervalSeconds : defaultHeartbeatIntervalSeconds(mode);
  // Adaptive clients (the built-in page) never send heartbeats: their check-ins keep them alive.
  const H = mode === "adaptive" ? 0 : given;
  const adaptive = mode === "adaptive";
  const checkIns = Math.max(1, T / P);
  const beats = H > 0 ? T / H : 0;
  const eventSeconds = 2 * T;
  const join = V, status = round(V * checkIns), heartbeat = round(V * beats);
  const ledgerEntries = adaptive
    ? Math.max(1, Math.min(Math.ceil(V / STATUS_BUDGET_PER_SECOND), LEDGER_HORIZON_SECONDS) / 2)
    : 1;
  const ledger = adaptive
    ? "eventSeconds × min(ceil(visitors / 750), 14400) / 2"
    : "eventSeconds × 1";
  // Per due check-in and per join commit, adaptive also sums a second into the check-in ledger.
  const w = adaptive ? { commit: 3, checkIn: 4 } : { commit: 2, checkIn: 3 };
  const perCommit = `visitors / ${JOINS_PER_COMMIT}`;
  const perNumbering = `visitors / ${NUMBERED_PER_COMMIT}`;
  const terms = [
    term("joins", V, 0, 3, "visitors", WHY.joins),
    term("joinCommits", V / JOINS_PER_COMMIT, 0, w.commit, perCommit, WHY[mode].commit),
    term("numbering", V, 1, 3, "visitors", WHY.numbering),
    term("numberingCommits", V / NUMBERED_PER_COMMIT, 2, 2, perNumbering, WHY.numberingCommit),
    term("waitingCheckIns", V * (checkIns - 1), 1, w.checkIn, REPEAT, WHY[mode].checkIn),
    term("heartbeats", V * beats, 1, 3, "visitors × heartbeatsPerVisitor", WHY.heartbeat),
    term("admissions", V, 2, 4, "visitors", WHY.admission),
    term("entries", V, 2, 4, "visitors", WHY.entry),
    term("slotReleases", V, 2, 2, "visitors", WHY.release),
    term("background", eventSeconds, 7, 2, "eventSeconds", WHY.background),
    term("slotLedgerReads", eventSeconds, ledgerEntries, 0, ledger, WHY[mode].ledger),
  ];
  const reads = terms.reduce((s, t) => s + t.reads, 0);
  const writes = terms.reduce((s, t) => s + t.writes, 0);
  const lineCheckIns = V / P;
  const admissions = V / eventSeconds;
  const heartbeats = H > 0 ? V / H : 0;
  const peakStatus = adaptive ? Math.max(lineCheckIns, admissions) : lineCheckIns;
  const total = join + status + heartbeat;
  return {
    mode,
    chosen,
    pollIntervalSeconds: P,
    heartbeatIntervalSeconds: H,
    checkInsPerVisitor: round(checkIns, 4),
    heartbeatsPerVisitor: round(beats, 4),
    requests: { join, status, heartbeat, total },
    kv: { reads, writes, terms },
    perSecond: {
      lineCheckIns: round(lineCheckIns, 2),
      admissions: round(admissions, 2),
      heartbeats: round(heartbeats, 2),
      peakStatus: round(peakStatus, 2),
      peakRequests: round(peakStatus + heartbeats, 2),
    },
    monthlyCost: monthlyCost(total, reads, writes),
  };
}

/** The whole estimate: inputs, both modes side by side, savings, formulas, prices and notes. */
export function estimateCost(inputs: CostInputs) {
  const adaptive = estimateMode(inputs, "adaptive");
  const fixed = estimateMode(inputs, "fixed");
  const saved = round(fixed.monthlyCost.totalUsd - adaptive.monthlyCost.totalUsd, 2);
  return {
    inputs,
    adaptive,
    fixed,
    savings: {
      requests: fixed.requests.total - adaptive.requests.total,
      kvReads: fixed.kv.reads - adaptive.kv.reads,
      kvWrites: fixed.kv.writes - adaptive.kv.writes,
      peakRequestsPerSecond: round(
        fixed.perSecond.peakRequests - adaptive.perSecond.peakRequests,
        2,
      ),
      monthlyUsd: saved,
      percentOfFixedCost: fixed.monthlyCost.totalUsd > 0
        ? round((saved / fixed.monthlyCost.totalUsd) * 100, 1)
        : 0,
    },
    formula: FORMULAS,
    pricing: DEPLOY_PRICING,
    notes: notes(inputs, adaptive, DEPLOY_PRICING),
  };
}

/** The estimate of one polling mode. */
export type ModeEstimate = ReturnType<typeof estimateMode>;
/** One KV cost term. */
export type KvTerm = ReturnType<typeof term>;
/** The result of `estimateCost`. */
export type CostEstimate = ReturnType<typeof estimateCost>;
