/**
 * The join guards, checked before a join reaches the engine: an enqueue token where the queue
 * needs one (or sends one), then the bot challenge where it is on (always, or automatically above
 * the operator's thresholds). A refusal throws before anything is written; a pass returns the
 * records the join's group commit must add (the spent solution, the enqueue key), so a solution
 * is used once and a key holds one place, across instances, at no extra commit.
 *
 * A join that resumes a valid ticket needs neither: the caller says so with `resuming`.
 */
import { type ProofOfWork, replayedError, spentRecord } from "../challenge/pow.ts";
import { ChallengeFailedError, ChallengeRequiredError } from "../challenge/errors.ts";
import type { Clock } from "../clock.ts";
import { AppError } from "../errors.ts";
import {
  EnqueueTokenInvalidError,
  EnqueueTokenRequiredError,
  type EnqueueTokens,
  keyHash,
} from "./enqueue.ts";
import {
  type AutoSwitch,
  type ClientAttempts,
  joinDifficulty,
  type JoinRates,
  type QueueLoad,
} from "./load.ts";
import type { JoinGuardSettings } from "./settings.ts";
import type { GuardStats } from "./stats.ts";
import type { JoinTurnstile } from "./turnstile.ts";
import type { JoinGuardPass } from "../queue/join.ts";

/** What a join brings to the guards. */
export interface JoinGuardInput {
  queue: string;
  /** The client as the per-client limits count it (IPv6 by its /64): challenges are bound to it. */
  client: string;
  /** The client's own address, for Turnstile's `remoteip` (defaults to `client`). */
  ip?: string;
  /** True when the join resumes a valid ticket for this queue: no challenge, no token. */
  resuming: boolean;
  /** `proof` of the join body: `{challenge, nonce}`. */
  proof?: unknown;
  /** `turnstileResponse` of the join body. */
  turnstileResponse?: string;
  /** `enqueueToken` of the join body (or of the `/wait` link). */
  enqueueToken?: string;
}

/** The pieces the guards use (one set per instance; `createJoinGuards` in app.ts builds them). */
export interface JoinGuardDeps {
  clock: Clock;
  /** The queue's guards, from its settings as this instance caches them (at most a second old). */
  settings(q: string): Promise<JoinGuardSettings>;
  pow: ProofOfWork;
  /** Null when `ENQUEUE_SECRET` is not set. */
  enqueue: EnqueueTokens | null;
  turnstile: JoinTurnstile;
  rates: JoinRates;
  auto: AutoSwitch;
  attempts: ClientAttempts;
  stats: GuardStats;
  /** The queue's waiting count (the engine's view, at most a second old). */
  waiting(q: string): Promise<number>;
}

/** Checks a join against its queue's guards; throws the refusal, or returns what to commit. */
export async function checkJoinGuards(d: JoinGuardDeps, j: JoinGuardInput): Promise<JoinGuardPass> {
  const pass: JoinGuardPass = { records: [] };
  if (j.resuming) return pass;
  // Every new join counts toward automatic mode's rate, refused ones too.
  d.rates.noteAttempt(j.queue);
  const s = await d.settings(j.queue);
  if (s.requireEnqueueToken || j.enqueueToken !== undefined) {
    const token = enqueueTokenOf(d, s, j);
    pass.enqueueKey = token && keyHash(token.key);
    if (token?.lane !== undefined) pass.lane = token.lane;
  }
  // Off (the default): nothing more to read on the join path.
  if (s.challenge === "off") return pass;
  const load: QueueLoad = {
    joinsPerMinute: await d.rates.perMinute(j.queue),
    paidPerMinute: await d.rates.paidPerMinute(j.queue),
    waiting: await d.waiting(j.queue),
  };
  const now = d.clock.now();
  if (!d.auto.active(j.queue, s, load, now)) return pass;
  const siteKey = s.provider === "builtin" ? null : await d.turnstile.siteKey();
  // Turnstile picked and usable: its response is checked first (the built-in one stands in
  // when no widget is live or Turnstile cannot be reached).
  if (siteKey !== null) {
    if (!j.turnstileResponse) {
      throw required(d, s, j, load, siteKey, s.provider === "both");
    }
    const out = await d.turnstile.check(j.turnstileResponse, j.ip ?? j.client);
    if (out === "refused") {
      d.stats.add(j.queue, "challengesFailed");
      throw new ChallengeFailedError("turnstile", "Turnstile refused the challenge response", {
        challenge: null,
        turnstile: { siteKey },
      });
    }
    if (out === "passed" && s.provider === "turnstile") {
      d.stats.add(j.queue, "challengesSolved");
      d.rates.notePaid(j.queue);
      return pass;
    }
    // "both" after a pass, or Turnstile unavailable: the built-in challenge decides.
  }
  if (j.proof === undefined) throw required(d, s, j, load, null, true);
  try {
    const v = d.pow.verify(j.proof, {
      purpose: "join",
      scope: j.queue,
      client: j.client,
      minDifficulty: s.difficulty,
    });
    // Used meanwhile (by another join of this batch or another instance): refused at commit.
    const conflict = () => {
      d.stats.add(j.queue, "challengesFailed");
      return replayedError().with({ challenge: issue(d, s, j, load), turnstile: null });
    };
    pass.records.push({ ...spentRecord(v, now), conflict });
  } catch (e) {
    if (!(e instanceof ChallengeFailedError)) throw e;
    d.stats.add(j.queue, "challengesFailed");
    throw e.with({ challenge: issue(d, s, j, load), turnstile: null });
  }
  d.stats.add(j.queue, "challengesSolved");
  d.rates.notePaid(j.queue);
  return pass;
}

/** A fresh challenge for this client (counted: its next one is harder). */
function issue(
  d: JoinGuardDeps,
  s: JoinGuardSettings,
  j: JoinGuardInput,
  load: QueueLoad,
) {
  const recent = d.attempts.note(j.client, d.clock.now());
  d.stats.add(j.queue, "challengesIssued");
  return d.pow.issue(
    { purpose: "join", scope: j.queue, client: j.client },
    joinDifficulty(s, load, recent),
  );
}

/** 403 `challenge_required` with what to solve: a challenge, a Turnstile site key, or both. */
function required(
  d: JoinGuardDeps,
  s: JoinGuardSettings,
  j: JoinGuardInput,
  load: QueueLoad,
  siteKey: string | null,
  withPow: boolean,
): ChallengeRequiredError {
  const challenge = withPow ? issue(d, s, j, load) : null;
  const what = challenge && siteKey
    ? "a Turnstile response and a proof-of-work solution"
    : siteKey
    ? "a Turnstile response (turnstileResponse)"
    : "a proof-of-work solution (proof: {challenge, nonce})";
  return new ChallengeRequiredError(`joining queue "${j.queue}" needs ${what}`, {
    queue: j.queue,
    challenge,
    turnstile: siteKey ? { siteKey } : null,
  });
}

/** The join's verified enqueue token (undefined: none to hold), or the refusal (counted). */
function enqueueTokenOf(
  d: JoinGuardDeps,
  s: JoinGuardSettings,
  j: JoinGuardInput,
): { key: string; lane?: string } | undefined {
  if (!d.enqueue) {
    // A token sent to a queue that does not need one, with no secret to check it: ignored.
    if (!s.requireEnqueueToken) return undefined;
    // Required, but this service cannot check tokens: closed, never open.
    d.stats.add(j.queue, "enqueueTokensRefused");
    throw new AppError(
      503,
      "enqueue_token_unavailable",
      "this queue needs enqueue tokens, but the service has no ENQUEUE_SECRET to check them",
    );
  }
  try {
    if (j.enqueueToken === undefined) throw new EnqueueTokenRequiredError(j.queue);
    return d.enqueue.verify(j.enqueueToken, j.queue, d.clock.now());
  } catch (e) {
    if (e instanceof EnqueueTokenInvalidError || e instanceof EnqueueTokenRequiredError) {
      d.stats.add(j.queue, "enqueueTokensRefused");
    }
    throw e;
  }
}
