/**
 * Reading and writing the edge records (pending setup and live link) with the token sealed under
 * `TOKEN_SECRET`. Writes happen only after every provider call of a step succeeded, and each one
 * re-reads the record and checks it did not change underneath (another admin, a reset, the final
 * setup step), so a step never half-writes or resurrects a record.
 */
import { ConflictError } from "../errors.ts";
import { seal, unseal } from "../seal.ts";
import { retryCommit } from "../store/commit.ts";
import { keys } from "../store/keys.ts";
import { safeEqualString } from "../tokens.ts";
import { type EdgeLink, type PendingEdge, pendingEdgeMissing } from "./state.ts";

/** `purpose` of the sealed API token (its own HKDF key). */
export const EDGE_TOKEN_PURPOSE = "edge-token";

/** Seals an API token for storage. */
export function sealToken(secret: string, token: string): Promise<string> {
  return seal(secret, token, EDGE_TOKEN_PURPOSE);
}

/** The stored token, or null when it can no longer be read (TOKEN_SECRET rotated). */
export function unsealToken(secret: string, sealed: string): Promise<string | null> {
  return unseal(secret, sealed, EDGE_TOKEN_PURPOSE);
}

/** True when `sealed` holds exactly `token` (compared in constant time). */
export async function sameToken(secret: string, sealed: string, token: string): Promise<boolean> {
  const old = await unsealToken(secret, sealed);
  return old !== null && safeEqualString(old, token);
}

/** 409 `conflict` for a sealed token TOKEN_SECRET can no longer open. */
export function tokenUnreadable(where: "setup" | "live"): ConflictError {
  const again = where === "live"
    ? "save the token again with PUT /api/admin/edge {token} (or re-run the setup's token step)"
    : "paste the token again (POST /api/admin/setup/edge/token-verify)";
  return withReason(
    new ConflictError(
      "conflict",
      `the saved Cloudflare API token can no longer be read: TOKEN_SECRET was changed since it ` +
        `was saved; ${again}`,
    ),
    "edge_token_unreadable",
  );
}

/** Adds `details.reason` (a machine-readable cause) to a 409. */
export function withReason(
  e: ConflictError,
  reason: string,
  more: Record<string, unknown> = {},
): ConflictError {
  Object.assign(e.details, { reason, ...more });
  return e;
}

// --- pending setup -------------------------------------------------------------------------

/** The pending edge setup record, or null. */
export async function readPending(kv: Deno.Kv): Promise<PendingEdge | null> {
  return (await kv.get<PendingEdge>(keys.setupPendingEdge())).value;
}

/** Writes a fresh pending record (token step), replacing it and a "no edge network" choice. */
export async function putPending(kv: Deno.Kv, p: PendingEdge): Promise<void> {
  await kv.atomic().set(keys.setupPendingEdge(), p).delete(keys.setupPendingEdgeNone()).commit();
}

/**
 * Applies `patch` to the pending record, provided it still is the one the step worked on (same
 * token, and the same zone and hostname where given); 409 `conflict` if it was replaced, changed
 * by another step meanwhile, or removed.
 */
export function patchPending(
  kv: Deno.Kv,
  expect: Pick<PendingEdge, "sealedToken" | "zoneId" | "hostname">,
  patch: (p: PendingEdge) => PendingEdge,
): Promise<PendingEdge> {
  return retryCommit(async () => {
    const cur = await kv.get<PendingEdge>(keys.setupPendingEdge());
    const p = cur.value;
    if (
      !p || p.sealedToken !== expect.sealedToken ||
      (expect.zoneId && (p.zoneId !== expect.zoneId || p.hostname !== expect.hostname))
    ) {
      throw withReason(
        new ConflictError(
          "conflict",
          "the edge setup changed meanwhile (new token, zone or hostname, or a reset); repeat the step",
        ),
        "setup_changed",
      );
    }
    const next = dropUndefined(patch(p));
    const ok = await kv.atomic().check(cur).set(keys.setupPendingEdge(), next).commit();
    return ok.ok ? next : null;
  }, "edge setup write");
}

/** A copy without `undefined` fields (a step that resets later steps removes their fields). */
function dropUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** What the wizard may see of the pending record: never the token. */
export function pendingView(p: PendingEdge | null, tokenReadable: boolean) {
  const missing = pendingEdgeMissing(p);
  return {
    tokenVerified: !!p,
    tokenReadable: p ? tokenReadable : false,
    zoneId: p?.zoneId ?? null,
    zoneName: p?.zoneName ?? null,
    accountId: p?.accountId ?? null,
    hostname: p?.hostname ?? null,
    fixed: !!p?.fixedAt,
    ssl: p?.ssl ?? null,
    domains: p?.domains ?? [],
    missing,
    complete: missing.length === 0,
  };
}

// --- live link -----------------------------------------------------------------------------

/** The live edge link, or null. */
export async function readLink(kv: Deno.Kv): Promise<EdgeLink | null> {
  return (await kv.get<EdgeLink>(keys.edge())).value;
}

/** 409 `conflict` when no edge is linked yet. */
export function notLinked(): ConflictError {
  return withReason(
    new ConflictError(
      "conflict",
      "no Cloudflare zone is linked yet; finish the setup's edge step or save zone, hostname " +
        "and token with PUT /api/admin/edge",
    ),
    "edge_not_linked",
  );
}

/**
 * Applies `patch` to the live link (or creates it when `patch` accepts null); 409 when it is
 * missing and may not be created. Re-read and checked, so concurrent edits do not lose each other.
 */
export function patchLink(
  kv: Deno.Kv,
  patch: (l: EdgeLink | null) => EdgeLink | null,
): Promise<EdgeLink> {
  return retryCommit(async () => {
    const cur = await kv.get<EdgeLink>(keys.edge());
    const next = patch(cur.value);
    if (!next) throw notLinked();
    const ok = await kv.atomic().check(cur).set(keys.edge(), next).commit();
    return ok.ok ? next : null;
  }, "edge link write");
}

/** What the admin app may see of the link: never the token. */
export function linkView(l: EdgeLink | null, tokenReadable: boolean) {
  if (!l) return { linked: false as const };
  return {
    linked: true as const,
    zoneId: l.zoneId,
    zoneName: l.zoneName,
    accountId: l.accountId ?? null,
    hostname: l.hostname,
    ssl: l.ssl,
    domains: l.domains,
    linkedAt: l.linkedAt,
    hasToken: true,
    tokenReadable,
  };
}
