/**
 * Turnstile on join: the live widget of the admin's bot-challenge setup checks joins too, where a
 * queue's guards pick it. When Turnstile cannot be reached (down, slow, rate limited) or its
 * secret cannot be used, this instance treats it as down for a minute and joins fall back to the
 * built-in proof of work: a sale does not stop because a third party is down.
 */
import { checkResponse } from "../challenge/check.ts";
import { CHALLENGE_SECRET_PURPOSE, readLiveChallenge } from "../challenge/records.ts";
import { turnstileOptions } from "../challenge/turnstile.ts";
import { type ProviderDeps, ProviderError } from "../edge/provider.ts";
import { unseal } from "../seal.ts";

/** How long a failure to reach Turnstile sends joins to the built-in challenge. */
export const TURNSTILE_DOWN_MS = 60_000;

/** The outcome of a join's Turnstile check. */
export type TurnstileOutcome = "passed" | "refused" | "unavailable";

/** Turnstile as the join path uses it: the live site key, a check, and the down state. */
export class JoinTurnstile {
  #downUntil = 0;
  #live: { at: number; siteKey: string | null; sealed: string; secret: string | null } | null =
    null;

  constructor(private deps: ProviderDeps) {}

  /** The live widget's site key while Turnstile is usable; null when none is live or it is down. */
  async siteKey(): Promise<string | null> {
    if (this.deps.clock.now() < this.#downUntil) return null;
    return (await this.#read()).siteKey;
  }

  /** Checks `response` from `ip`; `unavailable` (and down for a minute) when it cannot decide. */
  async check(response: string, ip: string): Promise<TurnstileOutcome> {
    const live = await this.#read();
    if (!live.siteKey) return "unavailable";
    if (live.secret === null) return this.#down();
    const rec = await readLiveChallenge(this.deps.kv);
    try {
      const out = await checkResponse(
        turnstileOptions(this.deps).siteverify,
        live.secret,
        response,
        ip,
        rec?.domains ?? [rec?.hostname ?? ""],
      );
      if (out.ok) return "passed";
      return out.why === "secret" ? this.#down() : "refused";
    } catch (e) {
      if (e instanceof ProviderError) return this.#down();
      throw e;
    }
  }

  #down(): "unavailable" {
    this.#downUntil = this.deps.clock.now() + TURNSTILE_DOWN_MS;
    return "unavailable";
  }

  /** The live record and its unsealed secret, read at most once a second. */
  async #read() {
    const now = this.deps.clock.now();
    const c = this.#live;
    if (c && now >= c.at && now - c.at < 1000) return c;
    const rec = await readLiveChallenge(this.deps.kv);
    const sealed = rec?.sealedSecret ?? "";
    // Unsealing costs a key derivation: done again only when the sealed secret changed.
    const secret = c && c.sealed === sealed
      ? c.secret
      : sealed
      ? await unseal(this.deps.config.TOKEN_SECRET, sealed, CHALLENGE_SECRET_PURPOSE)
      : null;
    this.#live = { at: now, siteKey: rec?.siteKey ?? null, sealed, secret };
    return this.#live;
  }
}
