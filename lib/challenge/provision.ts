/**
 * The challenge steps of the setup wizard: provision a Turnstile widget for the edge
 * hostname with the pending edge token, keep its secret sealed as pending, and verify one real
 * challenge with it. Nothing here goes live; `finishSetup` does that.
 */
import type { PendingEdge } from "../edge/state.ts";
import type { ProviderDeps } from "../edge/provider.ts";
import { unsealToken } from "../edge/store.ts";
import { BadRequestError, ConflictError } from "../errors.ts";
import { seal, unseal } from "../seal.ts";
import { keys } from "../store/keys.ts";
import { checkResponse } from "./check.ts";
import { CHALLENGE_SECRET_PURPOSE, type PendingChallenge } from "./records.ts";
import { createWidget, deleteWidget, turnstileOptions } from "./turnstile.ts";

/** A DNS hostname (lower case, at least one dot): what a widget's domain list accepts. */
export const HOSTNAME_RE =
  /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;

/** Most hostnames one widget may list (Turnstile's hostname management allows 10 per widget). */
export const MAX_WIDGET_DOMAINS = 10;

/** The answer of the provision step. */
export interface Provisioned {
  siteKey: string;
  hostname: string;
  domains: string[];
  /** True when the existing pending widget was kept (same account and hostnames). */
  reused: boolean;
  /** Set when a replaced widget could not be deleted at Cloudflare (delete it by hand). */
  warning?: string;
}

/** The widget's hostnames: the edge hostname, attached domains, PUBLIC_URL's host, extras. */
export function widgetDomains(
  edge: PendingEdge & { hostname: string },
  extra: string[],
  publicUrl: string | undefined,
): string[] {
  const pub = publicUrl ? new URL(publicUrl).hostname.toLowerCase() : "";
  const all = [edge.hostname, ...(edge.domains ?? []), pub, ...extra]
    .map((d) => d.toLowerCase().replace(/\.$/, ""))
    .filter((d) => HOSTNAME_RE.test(d));
  const out = [...new Set(all)];
  if (out.length > MAX_WIDGET_DOMAINS) {
    throw new BadRequestError(
      `a widget lists at most ${MAX_WIDGET_DOMAINS} hostnames; ${out.length} were asked for`,
      { fields: [{ path: "domains", message: `at most ${MAX_WIDGET_DOMAINS} hostnames in all` }] },
    );
  }
  return out;
}

/** The pending edge record with its token, or 409 saying which edge step to finish first. */
async function edgeForChallenge(s: ProviderDeps) {
  const entry = await s.kv.get<PendingEdge>(keys.setupPendingEdge());
  const edge = entry.value;
  if (!edge) {
    throw new ConflictError(
      "conflict",
      "finish the edge steps first: no Cloudflare API token is pending (edge token-verify)",
    );
  }
  if (!edge.accountId || !edge.hostname || !edge.zoneId) {
    throw new ConflictError(
      "conflict",
      "finish the edge steps first: the zone and its account are not verified yet (edge verify)",
    );
  }
  const token = await unsealToken(s.config.TOKEN_SECRET, edge.sealedToken);
  if (token === null) {
    throw new ConflictError(
      "conflict",
      "the pending Cloudflare API token can no longer be read (TOKEN_SECRET changed); paste it " +
        "again (edge token-verify)",
    );
  }
  return { entry, edge: { ...edge, accountId: edge.accountId, hostname: edge.hostname }, token };
}

const sameList = (a: string[], b: string[]) =>
  a.length === b.length && [...a].sort().join() === [...b].sort().join();

/**
 * Creates the widget and keeps it as the pending challenge. Repeatable: while the pending widget
 * matches (same account and hostnames, secret readable) it is kept as is (no provider call, a
 * done verification stays done); otherwise, or with `renew`, a new widget replaces it and the old
 * one is deleted afterwards (best effort: a leftover is reported in `warning`). When any step
 * fails, nothing is written and a widget created on the way is deleted again.
 */
export async function provisionChallenge(
  s: ProviderDeps,
  input: { domains?: string[]; renew?: boolean },
): Promise<Provisioned> {
  const { entry, edge, token } = await edgeForChallenge(s);
  const domains = widgetDomains(edge, input.domains ?? [], s.config.PUBLIC_URL);
  const current = await s.kv.get<PendingChallenge>(keys.setupPendingChallenge());
  const old = current.value;
  if (
    old && !input.renew && old.accountId === edge.accountId && sameList(old.domains, domains) &&
    (await unseal(s.config.TOKEN_SECRET, old.sealedSecret, CHALLENGE_SECRET_PURPOSE)) !== null
  ) {
    return { siteKey: old.siteKey, hostname: old.hostname, domains: old.domains, reused: true };
  }
  const api = turnstileOptions(s).api;
  const widget = await createWidget(api, token, edge.accountId, {
    name: `Tollgate sign-in (${edge.hostname})`.slice(0, 254),
    domains,
    mode: "managed",
  });
  const record: PendingChallenge = {
    siteKey: widget.sitekey,
    sealedSecret: await seal(s.config.TOKEN_SECRET, widget.secret, CHALLENGE_SECRET_PURPOSE),
    hostname: edge.hostname,
    domains,
    accountId: edge.accountId,
    provisionedAt: s.clock.now(),
  };
  // Written only if neither pending part changed meanwhile; else the new widget goes again.
  const cleanup = () => deleteWidget(api, token, edge.accountId, widget.sitekey).catch(() => {});
  let done: { ok: boolean };
  try {
    done = await s.kv.atomic().check(entry).check(current)
      .set(keys.setupPendingChallenge(), record)
      // Turnstile and the built-in challenge are one choice: the later one replaces the other.
      .delete(keys.setupPendingChallengeBuiltin()).commit();
  } catch (e) {
    await cleanup();
    throw e;
  }
  if (!done.ok) {
    await cleanup();
    throw new ConflictError(
      "conflict",
      "the pending setup changed while the widget was being created; try again",
    );
  }
  const out: Provisioned = {
    siteKey: record.siteKey,
    hostname: edge.hostname,
    domains,
    reused: false,
  };
  if (old && old.siteKey !== widget.sitekey) {
    try {
      await deleteWidget(api, token, old.accountId, old.siteKey);
    } catch {
      out.warning = `the replaced widget ${old.siteKey} could not be deleted; delete it in the ` +
        "Cloudflare dashboard (Turnstile)";
    }
  }
  return out;
}

/**
 * Verifies one real challenge with the pending widget (siteverify, the caller's address, one of
 * the widget's hostnames) and marks the pending challenge verified. A refused response is 400
 * `bad_request`; a secret Turnstile refuses or that no longer unseals is 409 (provision again).
 */
export async function verifyPendingChallenge(
  s: ProviderDeps,
  response: string,
  ip: string,
): Promise<{ siteKey: string; hostname: string; verifiedAt: number }> {
  const entry = await s.kv.get<PendingChallenge>(keys.setupPendingChallenge());
  const p = entry.value;
  if (!p) {
    throw new ConflictError("conflict", "provision the challenge first (challenge/provision)");
  }
  const secret = await unseal(s.config.TOKEN_SECRET, p.sealedSecret, CHALLENGE_SECRET_PURPOSE);
  if (secret === null) {
    throw new ConflictError(
      "conflict",
      "the pending challenge secret can no longer be read (TOKEN_SECRET changed); provision again",
    );
  }
  const out = await checkResponse(turnstileOptions(s).siteverify, secret, response, ip, p.domains);
  if (!out.ok) {
    if (out.why === "secret") {
      // A plain provision would keep this widget (it still matches), so ask for a new one.
      throw new ConflictError(
        "conflict",
        `Turnstile refused the pending widget's secret (${out.message}): the widget was deleted ` +
          `or its secret rotated in the Cloudflare dashboard; provision again with ` +
          `{"renew": true} (POST /api/admin/setup/challenge/provision) to get a new one`,
      );
    }
    throw new BadRequestError(`the challenge did not pass: ${out.message}`, {
      fields: [{ path: "response", message: out.message }],
      errorCodes: out.errorCodes,
      ...(out.why === "hostname" ? { hostname: out.hostname ?? null, expected: p.domains } : {}),
    });
  }
  const verifiedAt = s.clock.now();
  const done = await s.kv.atomic().check(entry)
    .set(keys.setupPendingChallenge(), { ...p, verifiedAt }).commit();
  if (!done.ok) {
    throw new ConflictError(
      "conflict",
      "the pending challenge changed while it was verified (provisioned again?); solve it again",
    );
  }
  return { siteKey: p.siteKey, hostname: out.hostname, verifiedAt };
}
