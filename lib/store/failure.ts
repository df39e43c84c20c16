/**
 * What the origin proxy and the forward-auth checks do while the store cannot be reached
 * (`STORE_FAILURE`): `closed` (the default, as before) sends a visitor without an access token
 * to the waiting room, which answers 503 until the store is back; `open` lets such visitors
 * through to the site for at most `STORE_FAILURE_OPEN_SECONDS` from the moment the store was
 * found unreachable, counting each one and logging loudly, then closes. Visitors with a valid
 * token never need the store and pass either way.
 *
 * The store is probed with one small read, bounded by a timeout (a store that hangs is as down as
 * one that throws), at most once a second per instance and only for requests that would need it.
 * Nothing is written while it is down, so no waiter is lost: when the store answers again, the
 * room goes on from its stored state by itself.
 */
import type { Clock } from "../clock.ts";
import { log } from "../log.ts";
import { instanceMetrics } from "../metrics/instance.ts";
import { keys } from "./keys.ts";

/** The two policies. */
export type StoreFailurePolicy = "closed" | "open";

/** What a request without a token meets: the store is fine, or it is down and we open or close. */
export type StoreVerdict = "ok" | "open" | "closed";

/** A store read that did not answer within the probe's timeout. */
export class StoreUnreachable extends Error {
  constructor(ms: number) {
    super(`the store did not answer within ${ms} ms`);
    this.name = "StoreUnreachable";
  }
}

/** How the policy runs. */
export interface StoreFailureOptions {
  policy: StoreFailurePolicy;
  /** Longest time the room stays open while the store is down (ms). */
  maxOpenMs: number;
  /** How long one store read may take before the store counts as unreachable (default 1000). */
  timeoutMs?: number;
}

/** How often (ms) a fail-open or fail-closed line is logged while the store stays down. */
const LOG_EVERY_MS = 5_000;
/** How long a probe's answer is trusted. */
const PROBE_EVERY_MS = 1_000;

/** The store-failure policy of one instance. */
export class StoreFailure {
  readonly policy: StoreFailurePolicy;
  readonly maxOpenMs: number;
  readonly timeoutMs: number;
  #downSince: number | null = null;
  #probedAt = -Infinity;
  #failedAt = -Infinity;
  #probing: Promise<boolean> | null = null;
  #loggedAt = -Infinity;
  #passed = 0;

  constructor(private readonly kv: Deno.Kv, private readonly clock: Clock, o: StoreFailureOptions) {
    this.policy = o.policy;
    this.maxOpenMs = o.maxOpenMs;
    this.timeoutMs = o.timeoutMs ?? 1000;
  }

  /** Since when the store has been unreachable (unix ms), or null while it answers. */
  get downSince(): number | null {
    return this.#downSince;
  }

  /**
   * `p`, or `StoreUnreachable` when it takes longer than the timeout (the store is then down).
   * Within a second of a failure it does not wait at all: a request that meets a hanging store
   * pays the timeout once a second per instance, not once per read.
   */
  bounded<T>(p: Promise<T>): Promise<T> {
    const now = this.clock.now();
    if (
      this.#downSince !== null && now - this.#failedAt < PROBE_EVERY_MS && now >= this.#failedAt
    ) {
      p.catch(() => {}); // settles whenever it does; nobody waits for it
      return Promise.reject(new StoreUnreachable(0));
    }
    return this.#race(p);
  }

  #race<T>(p: Promise<T>): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new StoreUnreachable(this.timeoutMs)), this.timeoutMs);
    });
    return Promise.race([p, late]).catch((e) => {
      this.#failedAt = this.clock.now();
      this.#markDown(String(e));
      throw e;
    }).finally(() => clearTimeout(timer));
  }

  /** True when the store answered a small read in time (probed at most once a second). */
  reachable(): Promise<boolean> {
    const now = this.clock.now();
    if (now - this.#probedAt < PROBE_EVERY_MS && now >= this.#probedAt) {
      return Promise.resolve(this.#downSince === null);
    }
    return this.#probing ??= this.#race(this.kv.get(keys.schemaVersion())).then(() => {
      if (this.#downSince !== null) {
        log("warn", "store reachable again", {
          downForMs: this.clock.now() - this.#downSince,
          letThroughMeanwhile: this.#passed,
        });
      }
      this.#downSince = null;
      this.#passed = 0;
      return true;
    }, () => false).finally(() => {
      this.#probedAt = this.clock.now();
      this.#probing = null;
    });
  }

  /**
   * The verdict for a request on `path` that has no access token and would need the store:
   * `ok` while it answers; while it does not, `open` (let it through, counted and logged) under
   * the open policy within its bound, else `closed`.
   */
  async verdict(path: "proxy" | "verify" | "wait"): Promise<StoreVerdict> {
    if (this.policy === "closed") return "ok"; // as before: the waiting room answers 503
    if (await this.reachable()) return "ok";
    const now = this.clock.now();
    const since = this.#downSince ?? now;
    const open = now - since < this.maxOpenMs;
    if (open) {
      this.#passed++;
      instanceMetrics.storeFailOpen.inc([path]);
    } else instanceMetrics.storeFailClosed.inc([path]);
    if (now - this.#loggedAt >= LOG_EVERY_MS || now < this.#loggedAt) {
      this.#loggedAt = now;
      log(
        "error",
        open ? "STORE UNREACHABLE: failing open" : "STORE UNREACHABLE: open bound over",
        {
          policy: this.policy,
          downForMs: now - since,
          maxOpenMs: this.maxOpenMs,
          letThrough: this.#passed,
        },
      );
    }
    return open ? "open" : "closed";
  }

  #markDown(why: string): void {
    if (this.#downSince !== null) return;
    this.#downSince = this.clock.now();
    log("error", "STORE UNREACHABLE", { policy: this.policy, error: why });
  }
}
