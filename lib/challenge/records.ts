/**
 * The bot challenge's records: the pending widget the setup wizard provisions and
 * verifies, and the live one `POST /api/admin/setup` promotes it to. Secrets are stored sealed
 * (purpose "challenge-secret"); the public views here never carry them.
 */
import { keys } from "../store/keys.ts";

/** `purpose` of the sealed widget secret (its own HKDF key, see lib/seal.ts). */
export const CHALLENGE_SECRET_PURPOSE = "challenge-secret";

/** The pending challenge part of setup, at `keys.setupPendingChallenge()`. */
export interface PendingChallenge {
  siteKey: string;
  /** The widget secret, sealed; never returned. */
  sealedSecret: string;
  /** The edge hostname the widget was made for. */
  hostname: string;
  /** Every hostname of the widget (the edge hostname first). */
  domains: string[];
  /** The Cloudflare account holding the widget (needed to delete it). */
  accountId: string;
  provisionedAt: number;
  /** Set by `setup/challenge/verify` once a real response passed siteverify (unix ms). */
  verifiedAt?: number;
}

/** The live challenge, at `keys.challenge()`: login, invite accept and recovery need it. */
export interface LiveChallenge {
  siteKey: string;
  sealedSecret: string;
  hostname: string;
  domains: string[];
  accountId: string;
  liveAt: number;
}

/** The live challenge record, or null when none is configured. */
export async function readLiveChallenge(kv: Deno.Kv): Promise<LiveChallenge | null> {
  return (await kv.get<LiveChallenge>(keys.challenge())).value;
}

/** The live record a verified pending one becomes. */
export function liveChallengeFrom(p: PendingChallenge, now: number): LiveChallenge {
  return {
    siteKey: p.siteKey,
    sealedSecret: p.sealedSecret,
    hostname: p.hostname,
    domains: p.domains,
    accountId: p.accountId,
    liveAt: now,
  };
}

/**
 * True when `host` is one of `domains` or a subdomain of one (Turnstile itself accepts a widget
 * on subdomains of its listed hostnames, so we check the same set, not a wider one).
 */
export function hostAllowed(host: string | undefined, domains: string[]): boolean {
  if (!host) return false;
  const h = host.toLowerCase().replace(/\.$/, "");
  return domains.some((d) => h === d || h.endsWith(`.${d}`));
}
