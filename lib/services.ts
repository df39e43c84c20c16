/**
 * The service's outside parts and the small interfaces lib modules share, so that nothing in lib
 * depends on the HTTP app that wires them together.
 */
import type { Clock, Random } from "./clock.ts";
import type { DnsResolver } from "./crawlers/verify.ts";
import type { Config } from "./config.ts";

/** Everything the app needs from outside; tests pass in-memory KV, a fake clock, seeded randomness. */
export interface AppDeps {
  kv: Deno.Kv;
  clock: Clock;
  config: Config;
  fetch: typeof fetch;
  random: Random;
  /** Run an admission tick from the first request of each second (default true; tests turn it off). */
  autoTick?: boolean;
  /** DNS lookups of the crawler check (default `Deno.resolveDns`; tests give a fake). */
  resolveDns?: DnsResolver;
}

/** Events operators can subscribe to (webhooks plug in here). */
export interface EventSink {
  emit(
    event: "pause" | "health" | "depth",
    queue: string,
    detail: Record<string, unknown>,
  ): Promise<void>;
}

/** The bot-challenge gate of login, invite accept and recovery. */
export interface ChallengeGate {
  /** True once a challenge is configured (live, not pending). */
  configured(): Promise<boolean>;
  /**
   * Passes while no challenge is configured; otherwise verifies `response` server-side. With
   * `stepUp` (an account past its failed sign-ins) a gate that can challenge without set-up (the
   * built-in one) requires a solution even then; one that cannot answers as without it.
   */
  verify(response: string | undefined, ip: string, opts?: { stepUp?: boolean }): Promise<boolean>;
}
