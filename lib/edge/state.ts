/**
 * The edge link's records: what the setup wizard gathers while pending, and the live link
 * that `POST /api/admin/setup` promotes it to. The edge-setup routes own the pending record; the
 * final setup step only asks whether it is complete and copies it.
 */

/** The pending edge part of setup, at `keys.setupPendingEdge()`. */
export interface PendingEdge {
  /** The provider API token, sealed (purpose "edge-token"); never returned. */
  sealedToken: string;
  /** When `setup/edge/token-verify` succeeded (unix ms). */
  tokenVerifiedAt: number;
  /** Set by `setup/edge/verify`. */
  zoneId?: string;
  zoneName?: string;
  /** The zone's account (`account.id`): the Turnstile widget is created in it. */
  accountId?: string;
  hostname?: string;
  zoneVerifiedAt?: number;
  /** Set by `setup/edge/fix` (proxied DNS and IP geolocation on). */
  fixedAt?: number;
  /** Set by `setup/edge/ssl`: strict full encryption, or an explicit skip. */
  ssl?: "strict" | "skipped";
  /** Custom domains attached during setup (optional step). */
  domains?: string[];
}

/** The live edge link, at `keys.edge()`. */
export interface EdgeLink {
  sealedToken: string;
  zoneId: string;
  zoneName: string;
  /** The zone's account (`account.id`). */
  accountId: string;
  hostname: string;
  ssl: "strict" | "skipped";
  domains: string[];
  linkedAt: number;
}

/** The steps still missing before the edge part of setup is complete; empty when complete. */
export function pendingEdgeMissing(p: PendingEdge | null): string[] {
  if (!p) return ["edge token", "edge zone", "edge fix", "edge ssl"];
  const missing: string[] = [];
  if (!p.zoneId || !p.zoneName || !p.accountId || !p.hostname) missing.push("edge zone");
  if (!p.fixedAt) missing.push("edge fix");
  if (!p.ssl) missing.push("edge ssl");
  return missing;
}

/** The live link a complete pending record becomes. */
export function liveEdgeFrom(p: PendingEdge, now: number): EdgeLink {
  if (pendingEdgeMissing(p).length) throw new Error("edge setup is not complete");
  return {
    sealedToken: p.sealedToken,
    zoneId: p.zoneId!,
    zoneName: p.zoneName!,
    accountId: p.accountId!,
    hostname: p.hostname!,
    ssl: p.ssl!,
    domains: p.domains ?? [],
    linkedAt: now,
  };
}
