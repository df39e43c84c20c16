/**
 * The end of the setup wizard (`POST /api/admin/setup`): when both pending parts are
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
import type { EdgeNone, LiveBuiltin, PendingChallengeBuiltin, PendingEdgeNone } from "./choices.ts";

/** The setup records `finishSetup` and the progress read: pending parts and live ones. */
interface SetupRecords {
  edge: PendingEdge | null;
  edgeNone: PendingEdgeNone | null;
  challenge: PendingChallenge | null;
  builtin: PendingChallengeBuiltin | null;
}

/** The steps still missing before `finishSetup` can run, in words; empty when complete. */
export function setupMissing(r: SetupRecords): string[] {
  const { edge, challenge: ch } = r;
  const missing = r.edgeNone ? [] : pendingEdgeMissing(edge);
  if (r.builtin) return missing;
  if (!ch) return [...missing, "challenge widget", "challenge verification"];
  if (edge?.hostname && !ch.domains.includes(edge.hostname.toLowerCase())) {
    missing.push(`challenge widget for ${edge.hostname} (provision it again)`);
  } else if (edge?.accountId && ch.accountId !== edge.accountId) {
    missing.push("challenge widget in the zone's account (provision it again)");
  }
  if (!ch.verifiedAt) missing.push("challenge verification");
  return missing;
}

const SETUP_KEYS = () =>
  [
    keys.setupPendingEdge(),
    keys.setupPendingEdgeNone(),
    keys.setupPendingChallenge(),
    keys.setupPendingChallengeBuiltin(),
    keys.edge(),
    keys.edgeNone(),
    keys.challenge(),
    keys.challengeBuiltin(),
  ] as const;

/** Reads every setup record in one consistent read. */
async function readSetup(kv: Deno.Kv) {
  const e = await kv.getMany<
    [
      PendingEdge,
      PendingEdgeNone,
      PendingChallenge,
      PendingChallengeBuiltin,
      EdgeLink,
      EdgeNone,
      LiveChallenge,
      LiveBuiltin,
    ]
  >(SETUP_KEYS());
  const pending: SetupRecords = {
    edge: e[0].value,
    edgeNone: e[1].value,
    challenge: e[2].value,
    builtin: e[3].value,
  };
  const anyPending = !!(pending.edge || pending.edgeNone || pending.challenge || pending.builtin);
  const liveEdge = !!(e[4].value || e[5].value), liveChallenge = !!(e[6].value || e[7].value);
  return { entries: e, pending, anyPending, liveEdge, liveChallenge };
}

/** What `finishSetup` answers. */
export interface SetupDone {
  complete: true;
  /** True when setup was already complete and nothing was pending (a repeated call). */
  alreadyComplete: boolean;
  /** The edge hostname; null without an edge network. */
  hostname: string | null;
  /** The live Turnstile widget's site key; null with the built-in challenge. */
  siteKey: string | null;
  edge: "cloudflare" | "none";
  challenge: "turnstile" | "builtin";
}

/**
 * Promotes both pending parts (Cloudflare link or "no edge network"; Turnstile widget or the
 * built-in challenge) in one atomic op that checks every setup record, so a concurrent change
 * (another tab re-provisioning) fails cleanly with 409 and changes nothing. Incomplete: 409
 * `conflict` whose `details.missing` lists the steps. Repeated after success (nothing pending,
 * both live): 200 with `alreadyComplete: true`. A live widget replaced by a new one is deleted
 * (best effort).
 */
export async function finishSetup(s: ProviderDeps): Promise<SetupDone> {
  const { entries, pending: p, anyPending, liveEdge, liveChallenge } = await readSetup(s.kv);
  const [, , , , le, ln, lc] = entries;
  if (!anyPending && liveEdge && liveChallenge) {
    return {
      complete: true,
      alreadyComplete: true,
      hostname: le.value?.hostname ?? null,
      siteKey: lc.value?.siteKey ?? null,
      edge: le.value ? "cloudflare" : "none",
      challenge: lc.value ? "turnstile" : "builtin",
    };
  }
  const missing = setupMissing(p);
  if (missing.length || !(p.edge || p.edgeNone) || !(p.challenge || p.builtin)) {
    throw new AppError(
      409,
      "conflict",
      `setup is not complete; still to do: ${missing.join(", ")}`,
      { missing },
    );
  }
  const now = s.clock.now();
  const op = s.kv.atomic().check(...entries);
  for (const k of SETUP_KEYS().slice(0, 4)) op.delete(k);
  if (p.edgeNone) {
    // The live Cloudflare link (if any) stays: the Edge tab keeps managing it.
    if (!ln.value) op.set(keys.edgeNone(), { since: now } satisfies EdgeNone);
  } else op.set(keys.edge(), liveEdgeFrom(p.edge!, now)).delete(keys.edgeNone());
  const live = p.builtin ? null : liveChallengeFrom(p.challenge!, now);
  if (live) op.set(keys.challenge(), live).delete(keys.challengeBuiltin());
  else {op.set(keys.challengeBuiltin(), { liveAt: now } satisfies LiveBuiltin).delete(
      keys.challenge(),
    );}
  if (!(await op.commit()).ok) {
    throw new ConflictError(
      "conflict",
      "setup changed while it was being finished; reload the setup progress and try again",
    );
  }
  const replaced = lc.value;
  if (replaced && replaced.siteKey !== live?.siteKey && p.edge) {
    // The old widget is no longer used; delete it with the new token (same account or not, a
    // failure only leaves an unused widget behind).
    const token = await unsealToken(s.config.TOKEN_SECRET, p.edge.sealedToken);
    if (token) {
      await deleteWidget(turnstileOptions(s).api, token, replaced.accountId, replaced.siteKey)
        .catch(() => {});
    }
  }
  return {
    complete: true,
    alreadyComplete: false,
    hostname: p.edgeNone ? null : p.edge!.hostname!,
    siteKey: live?.siteKey ?? null,
    edge: p.edgeNone ? "none" : "cloudflare",
    challenge: live ? "turnstile" : "builtin",
  };
}

/** The wizard's progress: which steps are done, what is missing; never a secret. */
export interface SetupProgress {
  complete: boolean;
  live: { edge: boolean; challenge: boolean; edgeNone: boolean; builtin: boolean };
  edge: {
    /** "No edge network" was chosen as the edge step. */
    none: boolean;
    token: boolean;
    zone: boolean;
    fix: boolean;
    ssl: boolean;
    domains: string[];
    zoneName: string | null;
    hostname: string | null;
  };
  challenge: {
    /** The built-in challenge was chosen and solved as the challenge step. */
    builtin: boolean;
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
  const [r, st] = await Promise.all([readSetup(kv), kv.get<SetupSteps>(keys.setupSteps())]);
  const { edge: e, challenge: c } = r.pending;
  const complete = r.liveEdge && r.liveChallenge;
  return {
    complete,
    live: {
      edge: r.liveEdge,
      challenge: r.liveChallenge,
      edgeNone: !r.entries[4].value && !!r.entries[5].value,
      builtin: !!r.entries[7].value,
    },
    edge: {
      none: !!r.pending.edgeNone,
      token: !!e,
      zone: !!(e?.zoneId && e.hostname),
      fix: !!e?.fixedAt,
      ssl: !!e?.ssl,
      domains: e?.domains ?? [],
      zoneName: e?.zoneName ?? null,
      hostname: e?.hostname ?? null,
    },
    challenge: {
      builtin: !!r.pending.builtin,
      provisioned: !!c,
      verified: !!c?.verifiedAt || !!r.pending.builtin,
      siteKey: c?.siteKey ?? null,
      domains: c?.domains ?? [],
    },
    steps: {
      queue: !!st.value?.queue,
      branding: !!st.value?.branding,
      queueName: st.value?.queueName ?? null,
    },
    missing: complete && !r.anyPending ? [] : setupMissing(r.pending),
  };
}
