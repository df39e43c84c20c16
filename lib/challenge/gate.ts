/**
 * The bot-challenge gate of login, invite accept and password recovery: open
 * while no challenge is live, then every call needs a Turnstile response that passes siteverify
 * with the live widget's secret, the caller's address and one of the widget's hostnames.
 *
 * It fails closed: when the challenge cannot be checked (Turnstile down or slow, the sealed
 * secret unreadable after a `TOKEN_SECRET` rotation, the secret refused by Turnstile) it throws
 * 503 `challenge_unavailable` saying what to do, instead of letting the caller through.
 */
import type { ChallengeGate } from "../services.ts";
import { type ProviderDeps, ProviderError } from "../edge/provider.ts";
import { unseal } from "../seal.ts";
import { checkResponse } from "./check.ts";
import { ChallengeUnavailableError } from "./errors.ts";
import { CHALLENGE_SECRET_PURPOSE, readLiveChallenge } from "./records.ts";
import { turnstileOptions } from "./turnstile.ts";
import { keys } from "../store/keys.ts";
import { builtinChallenger } from "./builtin.ts";

/** Which challenge is live: Turnstile, the built-in one, or none. */
export async function readLiveKind(kv: Deno.Kv): Promise<"turnstile" | "builtin" | null> {
  const [ts, bi] = await kv.getMany([keys.challenge(), keys.challengeBuiltin()]);
  return ts.value ? "turnstile" : bi.value ? "builtin" : null;
}

/** The way back in when Turnstile cannot be used, as every refusal here names it. */
export const USE_BUILTIN = "The operator can switch sign-in to the built-in challenge: " +
  "POST /api/admin/challenge/use-builtin with the header Authorization: Bearer <TOKEN_SECRET>.";

/** How long `configured()` trusts its last read (per instance). */
export const CONFIGURED_CACHE_MS = 1000;

/** The Turnstile-backed `ChallengeGate` of `Services.challenge`. */
export class TurnstileGate implements ChallengeGate {
  #cached: { at: number; configured: boolean } | null = null;

  constructor(private readonly deps: ProviderDeps) {}

  /** True once a challenge is live; the answer is cached about a second per instance. */
  async configured(): Promise<boolean> {
    const now = this.deps.clock.now();
    const c = this.#cached;
    if (c && now >= c.at && now - c.at < CONFIGURED_CACHE_MS) return c.configured;
    const configured = (await readLiveKind(this.deps.kv)) !== null;
    this.#cached = { at: now, configured };
    return configured;
  }

  /** Forgets the cached `configured()` answer (after this instance changed the record). */
  invalidate(): void {
    this.#cached = null;
  }

  /**
   * True while no challenge is live; otherwise true only for a response that passes. The live
   * record is read fresh here (not from the cache), so the gate closes at once after setup.
   */
  async verify(
    response: string | undefined,
    ip: string,
    opts: { stepUp?: boolean } = {},
  ): Promise<boolean> {
    const [live, builtin] = await Promise.all([
      readLiveChallenge(this.deps.kv),
      this.deps.kv.get(keys.challengeBuiltin()),
    ]);
    this.#cached = { at: this.deps.clock.now(), configured: !!(live || builtin.value) };
    // Nothing configured: open, unless an account past its failed sign-ins steps up to the
    // built-in check (it needs no set-up, so it is always there to ask for).
    if (!live && !builtin.value && !opts.stepUp) return true;
    // No response: refused without a provider call (a bot cannot make us spend one).
    if (!response?.trim()) return false;
    if (!live) return await builtinChallenger(this.deps).check("signin", response, ip);
    const secret = await unseal(
      this.deps.config.TOKEN_SECRET,
      live.sealedSecret ?? "",
      CHALLENGE_SECRET_PURPOSE,
    );
    if (secret === null) {
      throw new ChallengeUnavailableError(
        "secret_unreadable",
        "sign-in is unavailable: the bot-challenge secret can no longer be read (TOKEN_SECRET " +
          "changed since it was stored). " + USE_BUILTIN,
      );
    }
    let out;
    try {
      out = await checkResponse(
        turnstileOptions(this.deps).siteverify,
        secret,
        response,
        ip,
        live.domains ?? [live.hostname],
      );
    } catch (e) {
      if (!(e instanceof ProviderError)) throw e;
      throw new ChallengeUnavailableError(
        "provider",
        `sign-in is unavailable: Turnstile could not be reached (${e.message}); try again ` +
          `in a minute. If it stays unreachable: ${USE_BUILTIN}`,
        e.kind === "rate_limited" ? e.retryAfterSeconds : undefined,
      );
    }
    if (out.ok) return true;
    if (out.why === "secret") {
      throw new ChallengeUnavailableError(
        "secret_rejected",
        "sign-in is unavailable: Turnstile refused the bot-challenge secret (was the widget " +
          "deleted or its secret rotated in the Cloudflare dashboard?). " + USE_BUILTIN,
      );
    }
    return false;
  }
}

/** The gate `createApp` wires into `Services.challenge`. */
export function createChallengeGate(deps: ProviderDeps): TurnstileGate {
  return new TurnstileGate(deps);
}

/** Makes this instance's gate re-read the live record (a no-op for other gates). */
export function invalidateChallengeGate(gate: ChallengeGate): void {
  if (gate instanceof TurnstileGate) gate.invalidate();
}
