/**
 * The origin health throttle's records: the admin's config (with the operator override) at
 * `keys.health()`, and the probe state at `keys.healthState()`, plus the snapshot built from both.
 */
import { BadRequestError } from "../errors.ts";
import { withDefaults } from "../queue/types.ts";

/** What the metrics call the origin's health. */
export type HealthState = "unmonitored" | "healthy" | "unhealthy";
/** An operator override: forces a state until cleared (null). */
export type HealthOverride = "healthy" | "unhealthy" | null;

/** The throttle config (Admission details). */
export interface HealthConfig {
  enabled: boolean;
  url: string;
  intervalSeconds: number;
  timeoutMs: number;
  /** Consecutive failed probes that pause admissions. */
  failures: number;
  /** Consecutive good probes that resume them. */
  recoveries: number;
  override: HealthOverride;
  /** Bumped on every config save; a probe of an older config is discarded. */
  rev: number;
  updatedAt: number | null;
}

/** Defaults of a service that never saved a config. */
export const DEFAULT_HEALTH_CONFIG: HealthConfig = {
  enabled: false,
  url: "",
  intervalSeconds: 10,
  timeoutMs: 2000,
  failures: 3,
  recoveries: 2,
  override: null,
  rev: 0,
  updatedAt: null,
};

/** Bounds of the config fields (the route validates with them; the README lists them). */
export const HEALTH_BOUNDS = {
  intervalSeconds: [5, 3600],
  timeoutMs: [100, 30_000],
  failures: [1, 20],
  recoveries: [1, 20],
} as const;

/** The config fields an admin saves (omitted ones keep their stored value). */
export type HealthConfigInput =
  & Pick<HealthConfig, "enabled">
  & Partial<
    Pick<HealthConfig, "url" | "intervalSeconds" | "timeoutMs" | "failures" | "recoveries">
  >;

/** Refuses a merged config that cannot work: enabled without a URL, or a timeout past the interval. */
export function checkHealthConfig(cfg: HealthConfig): void {
  const bad = (path: string, message: string) =>
    new BadRequestError(`${path}: ${message}`, { fields: [{ path, message }] });
  if (cfg.enabled && !cfg.url) throw bad("url", "required when enabled is true");
  if (cfg.timeoutMs >= cfg.intervalSeconds * 1000) {
    throw bad("timeoutMs", `must be below the interval (${cfg.intervalSeconds * 1000} ms)`);
  }
}

/** The probe state, shared by all instances; `roundAt` is the claim of the last probe round. */
export interface ProbeState {
  state: "healthy" | "unhealthy";
  consecutiveFailures: number;
  consecutiveSuccesses: number;
  lastCheckedAt: number | null;
  lastError: string | null;
  roundAt: number;
  /** The config revision these counts belong to. */
  rev: number;
}

/** A fresh probe state for config `rev` (healthy until proven otherwise). */
export function freshProbeState(rev: number, state: ProbeState["state"] = "healthy"): ProbeState {
  return {
    state,
    consecutiveFailures: 0,
    consecutiveSuccesses: 0,
    lastCheckedAt: null,
    lastError: null,
    roundAt: 0,
    rev,
  };
}

/** The stored config merged over the defaults (soft merge). */
export function mergeHealthConfig(stored: Partial<HealthConfig> | null): HealthConfig {
  return withDefaults(DEFAULT_HEALTH_CONFIG, stored);
}

/** The health snapshot of `/metrics` and the admin metrics (no URL path or query: host only). */
export interface HealthSnapshot {
  /** The state admissions follow: the override when set, else the probed state. */
  state: HealthState;
  /** What the probes say (unmonitored while disabled). */
  probed: HealthState;
  override: HealthOverride;
  consecutiveFailures: number;
  consecutiveSuccesses: number;
  lastCheckedAt: number | null;
  lastError: string | null;
  config: {
    enabled: boolean;
    host: string | null;
    intervalSeconds: number;
    timeoutMs: number;
    failures: number;
    recoveries: number;
  };
}

/** Host (and port) of a URL; null when there is none. */
export function urlHost(url: string): string | null {
  try {
    return url ? new URL(url).host : null;
  } catch {
    return null;
  }
}

/** The config as the snapshot and the audit log show it: the probed URL's host only. */
export function healthConfigSummary(cfg: HealthConfig): HealthSnapshot["config"] {
  return {
    enabled: cfg.enabled,
    host: urlHost(cfg.url),
    intervalSeconds: cfg.intervalSeconds,
    timeoutMs: cfg.timeoutMs,
    failures: cfg.failures,
    recoveries: cfg.recoveries,
  };
}

/** The snapshot of a config and probe state. */
export function healthSnapshot(cfg: HealthConfig, st: ProbeState | null): HealthSnapshot {
  const live = cfg.enabled && st !== null && st.rev === cfg.rev ? st : null;
  const probed: HealthState = cfg.enabled ? live?.state ?? "healthy" : "unmonitored";
  return {
    state: cfg.override ?? probed,
    probed,
    override: cfg.override,
    consecutiveFailures: live?.consecutiveFailures ?? 0,
    consecutiveSuccesses: live?.consecutiveSuccesses ?? 0,
    lastCheckedAt: live?.lastCheckedAt ?? null,
    lastError: live?.lastError ?? null,
    config: healthConfigSummary(cfg),
  };
}

/** The snapshot shown where no monitor is wired (an engine built on its own, in tests). */
export function unmonitoredSnapshot(healthPaused: boolean): HealthSnapshot {
  const s = healthSnapshot(DEFAULT_HEALTH_CONFIG, null);
  return healthPaused ? { ...s, state: "unhealthy" } : s;
}

/** The probe state after one probe: counts move, and the thresholds flip the state. */
export function afterProbe(
  cfg: HealthConfig,
  st: ProbeState,
  ok: boolean,
  error: string | null,
  now: number,
): ProbeState {
  const next: ProbeState = {
    ...st,
    consecutiveFailures: ok ? 0 : st.consecutiveFailures + 1,
    consecutiveSuccesses: ok ? st.consecutiveSuccesses + 1 : 0,
    lastCheckedAt: now,
    lastError: ok ? null : error,
  };
  if (!ok && st.state === "healthy" && next.consecutiveFailures >= cfg.failures) {
    next.state = "unhealthy";
  } else if (ok && st.state === "unhealthy" && next.consecutiveSuccesses >= cfg.recoveries) {
    next.state = "healthy";
  }
  return next;
}
