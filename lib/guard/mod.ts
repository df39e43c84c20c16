/**
 * The join guards of one instance, as one piece of the services: settings, the proof-of-work
 * challenge, enqueue tokens, Turnstile on join, the load and per-client counts, the statistics.
 * The join path calls `guards.check(...)` before the engine and passes its answer to
 * `engine.join(...)`.
 */
import type { HitCounter } from "../access/hits.ts";
import { ProofOfWork } from "../challenge/pow.ts";
import type { Random } from "../clock.ts";
import type { ProviderDeps } from "../edge/provider.ts";
import type { Engine } from "../queue/engine.ts";
import type { JoinGuardPass } from "../queue/join.ts";
import { checkJoinGuards, type JoinGuardDeps, type JoinGuardInput } from "./check.ts";
import { EnqueueTokens } from "./enqueue.ts";
import { AutoSwitch, ClientAttempts, JoinRates } from "./load.ts";
import { GuardStats } from "./stats.ts";
import { JoinTurnstile } from "./turnstile.ts";

/** The join guards of one instance. */
export interface JoinGuards extends JoinGuardDeps {
  /** Checks a join (see `checkJoinGuards`): throws the refusal, or returns what to commit. */
  check(j: JoinGuardInput): Promise<JoinGuardPass>;
}

/**
 * Builds the join guards (app.ts wires them in as `services.guards`); `hits` is the join path's
 * refusal counter, which their statistics share.
 */
export function createJoinGuards(
  deps: ProviderDeps & { random: Random },
  engine: Engine,
  hits: HitCounter,
): JoinGuards {
  const { kv, clock, config } = deps;
  const g: JoinGuards = {
    clock,
    settings: async (q) => (await engine.settings(q)).joinGuards,
    pow: new ProofOfWork(config.TOKEN_SECRET, clock, deps.random),
    enqueue: config.ENQUEUE_SECRET ? new EnqueueTokens(config.ENQUEUE_SECRET) : null,
    turnstile: new JoinTurnstile(deps),
    rates: new JoinRates(kv, clock),
    auto: new AutoSwitch(),
    attempts: new ClientAttempts(),
    stats: new GuardStats(kv, clock, hits),
    waiting: async (q) => (await engine.ctx.view(q)).counts.waiting,
    check: (j) => checkJoinGuards(g, j),
  };
  return g;
}
