/**
 * The end of the setup wizard (SPEC 4.3 `POST /api/admin/setup`): when both pending parts are
 * complete, the edge link and the challenge go live together in one atomic KV operation, and the
 * wizard's progress as the admin app reads it to resume.
 */
import { liveEdgeFrom, pendingEdgeMissing } from "../edge/state.ts";
import type { ProviderDeps } from "../edge/provider.ts";
import { unsealToken } from "../edge/store.ts";
import type { EdgeLink, PendingEdge } from "../edge/state.ts";
import { AppError, ConflictError } from "../errors.ts";
import { retryCommit } from "../store/commit.ts";
import { keys } from "../store/keys.ts";
import { deleteWidget, turnstileOptions } from "./turnstile.ts";
import { type LiveChallenge, liveChallengeFrom, type PendingChallenge } from "./records.ts";

/** The steps still missing before `finishSetup` can run, in words; empty when complete. */
export function setupMissing(
  edge: PendingEdge | null,
  ch: PendingChallenge | null,
): string[] {
  const missing = pendingEdgeMissing(edge);
  if (!ch) return [...missing, "challenge widget", "challenge verification"];
  if (edge?.hostname && !ch.domains.includes(edge.hostname.toLowerCase())) {
    missing.push(`challenge widget for ${edge.hostname} (provision it again)`);
  } else if (edge?.accountId && ch.accountId !== edge.accountId) {
    missing.push("challenge widget in the zone's account (provision it again)");
  }
  if (!ch.verifiedAt) missing.push("challenge verification");
  return missing;
}

/** What `finishSetup` answers. */
export interface SetupDone {
  complete: true;
  /** True when setup was already complete and nothing was pending (a repeated call). */
  alreadyComplete: boolean;
  hostname: string;
  siteKey: string;
}

/**
 * Promotes both pending parts: `keys.edge()` and `keys.challenge()` are set and both pending keys
 * deleted in one atomic op that checks all four versionstamps, so a concurrent change (another
 * tab re-provisioning) fails cleanly with 409 and changes nothing. Incomplete: 409 `conflict`
 * whose `details.missing` lists the steps. Repeated after success (nothing pending, both live):
 * 200 with `alreadyComplete: true`. A live widget replaced by a new one is deleted (best effort).
 */
export async function finishSetup(s: ProviderDeps): Promise<SetupDone> {
  const [pe, pc, le, lc] = await s.kv.getMany<
    [PendingEdge, PendingChallenge, EdgeLink, LiveChallenge]
  >([keys.setupPendingEdge(), keys.setupPendingChallenge(), keys.edge(), keys.challenge()]);
  if (!pe.value && !pc.value && le.value && lc.value) {
    return {
      complete: true,
      alreadyComplete: true,
      hostname: le.value.hostname,
      siteKey: lc.value.siteKey,
    };
  }
  const missing = setupMissing(pe.value, pc.value);
  if (missing.length || !pe.value || !pc.value) {
    throw new AppError(
      409,
      "conflict",
      `setup is not complete; still to do: ${missing.join(", ")}`,
      {
        missing,
      },
    );
  }
  const now = s.clock.now();
  const live = liveChallengeFrom(pc.value, now);
  const ok = await s.kv.atomic().check(pe, pc, le, lc)
    .set(keys.edge(), liveEdgeFrom(pe.value, now))
    .set(keys.challenge(), live)
    .delete(keys.setupPendingEdge())
    .delete(keys.setupPendingChallenge())
    .commit();
  if (!ok.ok) {
    throw new ConflictError(
      "conflict",
      "setup changed while it was being finished; reload the setup progress and try again",
    );
  }
  const replaced = lc.value;
  if (replaced && replaced.siteKey !== live.siteKey) {
    // The old widget is no longer used; delete it with the new token (same account or not, a
    // failure only leaves an unused widget behind).
    const token = await unsealToken(s.config.TOKEN_SECRET, pe.value.sealedToken);
    if (token) {
      await deleteWidget(turnstileOptions(s).api, token, replaced.accountId, replaced.siteKey)
        .catch(() => {});
    }
  }
  return { complete: true, alreadyComplete: false, hostname: live.hostname, siteKey: live.siteKey };
}

/** The wizard's progress: which steps are done, what is missing; never a secret. */
export interface SetupProgress {
  complete: boolean;
  live: { edge: boolean; challenge: boolean };
  edge: {
    token: boolean;
    zone: boolean;
    fix: boolean;
    ssl: boolean;
    domains: string[];
    zoneName: string | null;
    hostname: string | null;
  };
  challenge: {
    provisioned: boolean;
    verified: boolean;
    siteKey: string | null;
    domains: string[];
  };
  /** The wizard's own steps after the challenge (recorded by `POST /api/admin/setup/step`). */
  steps: { queue: boolean; branding: boolean; queueName: string | null };
  /** What `POST /api/admin/setup` would still refuse for; empty when it can run or ran. */
  missing: string[];
}

/** The stored record of the wizard's own steps: when each was done, and the queue picked. */
export interface SetupSteps {
  queue?: number;
  branding?: number;
  queueName?: string;
}

/** Records a wizard step as done (`queue` also keeps the queue picked); returns the record. */
export function recordSetupStep(
  kv: Deno.Kv,
  now: number,
  step: "queue" | "branding",
  queueName?: string,
): Promise<SetupSteps> {
  return retryCommit(async () => {
    const cur = await kv.get<SetupSteps>(keys.setupSteps());
    const next: SetupSteps = { ...cur.value, [step]: now };
    if (queueName) next.queueName = queueName;
    return (await kv.atomic().check(cur).set(keys.setupSteps(), next).commit()).ok ? next : null;
  }, "record setup step");
}

/** Reads the pending and live records into the wizard's progress. */
export async function setupProgress(kv: Deno.Kv): Promise<SetupProgress> {
  const [pe, pc, le, lc, st] = await kv.getMany<
    [PendingEdge, PendingChallenge, EdgeLink, LiveChallenge, SetupSteps]
  >([
    keys.setupPendingEdge(),
    keys.setupPendingChallenge(),
    keys.edge(),
    keys.challenge(),
    keys.setupSteps(),
  ]);
  const e = pe.value, c = pc.value;
  const complete = !!le.value && !!lc.value;
  const idle = complete && !e && !c;
  return {
    complete,
    live: { edge: !!le.value, challenge: !!lc.value },
    edge: {
      token: !!e,
      zone: !!(e?.zoneId && e.hostname),
      fix: !!e?.fixedAt,
      ssl: !!e?.ssl,
      domains: e?.domains ?? [],
      zoneName: e?.zoneName ?? null,
      hostname: e?.hostname ?? null,
    },
    challenge: {
      provisioned: !!c,
      verified: !!c?.verifiedAt,
      siteKey: c?.siteKey ?? null,
      domains: c?.domains ?? [],
    },
    steps: {
      queue: !!st.value?.queue,
      branding: !!st.value?.branding,
      queueName: st.value?.queueName ?? null,
    },
    missing: idle ? [] : setupMissing(e, c),
  };
}
