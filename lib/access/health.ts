/**
 * The origin health throttle: probes the configured URL every `intervalSeconds` on one instance
 * (each round is claimed with a checked KV write, as the admission tick is), pauses admissions on
 * every queue after `failures` failed probes in a row and resumes them after `recoveries` good
 * ones. An operator override forces either state until cleared. Driven by the clock: the
 * per-second admission tick calls `maybeProbe()`, and tests call it directly with a fake clock.
 *
 * @example
 * const health = new HealthMonitor({ kv, clock, fetch, engine, events });
 * await health.saveConfig({ enabled: true, url: "https://shop.example/health" });
 * await health.maybeProbe(); // true when this instance ran the round
 */
import type { EventSink } from "../services.ts";
import type { Clock } from "../clock.ts";
import type { Engine } from "../queue/engine.ts";
import { retryCommit } from "../store/commit.ts";
import { keys } from "../store/keys.ts";
import { VERSION } from "../version.ts";
import { logLine } from "../log.ts";
import {
  afterProbe,
  checkHealthConfig,
  freshProbeState,
  type HealthConfig,
  type HealthConfigInput,
  type HealthOverride,
  type HealthSnapshot,
  healthSnapshot,
  mergeHealthConfig,
  type ProbeState,
  urlHost,
} from "./health_config.ts";
import { type OutboundConfig, outboundGuard } from "../outbound/guard.ts";
import { couldNotReach } from "../outbound/failure.ts";

/** What the monitor needs; `fetch` is looked up at call time (tests swap the client). */
export interface HealthDeps {
  kv: Deno.Kv;
  clock: Clock;
  fetch: typeof fetch;
  engine: Pick<Engine, "queueNames" | "defaultQueue" | "setHealthPaused" | "ctx">;
  events: EventSink;
  /** The outbound-URL policy's settings: each probe's address is checked before it is sent. */
  config: OutboundConfig;
  /** One line per state change (default: `logLine`, lib/log.ts). */
  log?: (line: string) => void;
}

/** How long the snapshot is reused (the metrics of every queue show the same one). */
const SNAPSHOT_TTL_MS = 1000;

/** The origin health monitor of one instance. */
export class HealthMonitor {
  #probing = false;
  /** Local knowledge that the next round is not due before this time (no KV read until then). */
  #quiet: { from: number; until: number } | null = null;
  #snapshot: { value: HealthSnapshot; at: number } | null = null;
  /** Bumped whenever the snapshot is dropped, so a read begun before cannot refill it. */
  #generation = 0;
  #log: (line: string) => void;

  constructor(private deps: HealthDeps) {
    this.#log = deps.log ?? logLine;
  }

  /** Reads the config and the probe state with their entries. */
  async read() {
    const [c, st] = await this.deps.kv.getMany<[Partial<HealthConfig>, ProbeState]>([
      keys.health(),
      keys.healthState(),
    ]);
    return { cfg: mergeHealthConfig(c.value), cfgEntry: c, st: st.value, stEntry: st };
  }

  /** The health snapshot (reused for up to a second; local writes drop it). */
  async snapshot(): Promise<HealthSnapshot> {
    const now = this.deps.clock.now();
    const s = this.#snapshot;
    if (s && now >= s.at && now - s.at < SNAPSHOT_TTL_MS) return s.value;
    const generation = this.#generation;
    const { cfg, st } = await this.read();
    const value = healthSnapshot(cfg, st);
    if (generation === this.#generation) this.#snapshot = { value, at: now };
    return value;
  }

  /** Drops the cached snapshot (after a write of this instance). */
  #drop(): void {
    this.#snapshot = null;
    this.#generation++;
  }

  #forget(): void {
    this.#drop();
    this.#quiet = null;
  }

  /**
   * Saves the probe config (omitted fields keep their value), starts its counts afresh (the state
   * stays until the thresholds move it; disabling forgets it), applies the result to the queues
   * and emits the `health` webhook with `{enabled, url}`.
   */
  async saveConfig(input: HealthConfigInput): Promise<HealthConfig> {
    const cfg = await retryCommit(async () => {
      const { cfg: cur, cfgEntry, st, stEntry } = await this.read();
      const next: HealthConfig = {
        ...cur,
        ...Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)),
        rev: cur.rev + 1,
        updatedAt: this.deps.clock.now(),
      };
      checkHealthConfig(next);
      const op = this.deps.kv.atomic().check(cfgEntry, stEntry).set(keys.health(), next);
      if (next.enabled) {
        const keep = cur.enabled && st?.rev === cur.rev ? st.state : "healthy";
        op.set(keys.healthState(), freshProbeState(next.rev, keep));
      } else op.delete(keys.healthState());
      return (await op.commit()).ok ? next : null;
    }, "health config");
    this.#forget();
    await this.reconcile();
    const queue = (await this.deps.engine.defaultQueue()) ??
      (await this.deps.engine.queueNames())[0] ?? "default";
    await this.deps.events.emit("health", queue, { enabled: cfg.enabled, url: cfg.url });
    return cfg;
  }

  /** Sets (or with null clears) the operator override and applies it to the queues at once. */
  async setOverride(override: HealthOverride): Promise<HealthConfig> {
    const cfg = await retryCommit(async () => {
      const { cfg: cur, cfgEntry } = await this.read();
      const next = { ...cur, override };
      const ok = (await this.deps.kv.atomic().check(cfgEntry).set(keys.health(), next).commit()).ok;
      return ok ? next : null;
    }, "health override");
    this.#forget();
    await this.reconcile();
    return cfg;
  }

  /**
   * Sets `healthPaused` on every queue to what the snapshot says (queues created since the last
   * round included). Only called after a config write and after a probe round, so while the
   * throttle is off and not overridden it never touches a queue.
   */
  async reconcile(): Promise<void> {
    this.#drop();
    const paused = (await this.snapshot()).state === "unhealthy";
    const ctx = this.deps.engine.ctx;
    for (const q of await this.deps.engine.queueNames()) {
      const s = await ctx.readSettings(q);
      if (s && s.healthPaused !== paused) await this.deps.engine.setHealthPaused(q, paused);
    }
  }

  /**
   * Runs a probe round when one is due and this instance wins its claim; returns true when it
   * probed. Cheap when not due: no KV read until the round this instance knows of has passed.
   */
  async maybeProbe(): Promise<boolean> {
    const now = this.deps.clock.now();
    const quiet = this.#quiet;
    if (this.#probing || (quiet && now >= quiet.from && now < quiet.until)) return false;
    this.#probing = true;
    try {
      const { cfg, cfgEntry, st, stEntry } = await this.read();
      if (!cfg.enabled || !cfg.url) {
        // Off: look again an interval later (a save on this instance looks at once), so an
        // unused throttle costs a read every 10 s, not every tick.
        this.#quiet = { from: now, until: now + cfg.intervalSeconds * 1000 };
        // Not probing, but an override still holds queues created since it was set.
        if (cfg.override !== null) await this.reconcile();
        return false;
      }
      const cur = st && st.rev === cfg.rev ? st : freshProbeState(cfg.rev);
      const due = cur.roundAt + cfg.intervalSeconds * 1000;
      if (now < due && now >= cur.roundAt) {
        this.#quiet = { from: now, until: due };
        return false;
      }
      // The claim: whoever writes first this round probes; the others see a changed entry.
      const claim = await this.deps.kv.atomic().check(cfgEntry, stEntry)
        .set(keys.healthState(), { ...cur, roundAt: now }).commit();
      if (!claim.ok) return false;
      this.#quiet = { from: now, until: now + cfg.intervalSeconds * 1000 };
      const { ok, error } = await this.#probe(cfg);
      await this.#record(cfg, ok, error);
      await this.reconcile();
      return true;
    } finally {
      this.#probing = false;
    }
  }

  /** One probe: 2xx and 3xx are good; another status, a timeout or a network error is not. */
  async #probe(cfg: HealthConfig): Promise<{ ok: boolean; error: string | null }> {
    const host = urlHost(cfg.url) ?? "(invalid url)";
    // The name may resolve elsewhere than when it was saved: a refused address is a failed probe.
    const refused = await outboundGuard(this.deps.config).checkSend(cfg.url);
    if (refused) return { ok: false, error: `refused: ${refused.detail}` };
    try {
      const res = await this.deps.fetch(cfg.url, {
        method: "GET",
        headers: { "user-agent": `tollgate/${VERSION} health-check` },
        // A redirect counts as an answer; following it could lead anywhere.
        redirect: "manual",
        signal: AbortSignal.timeout(cfg.timeoutMs),
      });
      await res.body?.cancel();
      if (res.status >= 200 && res.status < 400) return { ok: true, error: null };
      return { ok: false, error: `${host} answered ${res.status}` };
    } catch (e) {
      const name = e instanceof Error ? e.name : "";
      // The runtime's reason without its URL (a path or query may hold a token): refused, an
      // untrusted certificate, an unknown name.
      return {
        ok: false,
        error: name === "TimeoutError" || name === "AbortError"
          ? `${host}: no answer within ${cfg.timeoutMs} ms`
          : couldNotReach(e, host),
      };
    }
  }

  /** Writes a probe's outcome, unless the config changed meanwhile (then it is discarded). */
  async #record(cfg: HealthConfig, ok: boolean, error: string | null): Promise<void> {
    const before = await retryCommit(async () => {
      const { cfg: now, cfgEntry, st, stEntry } = await this.read();
      if (!now.enabled || now.rev !== cfg.rev || !st || st.rev !== cfg.rev) return false;
      const next = afterProbe(now, st, ok, error, this.deps.clock.now());
      const res = await this.deps.kv.atomic().check(cfgEntry, stEntry)
        .set(keys.healthState(), next).commit();
      if (!res.ok) return null;
      if (next.state !== st.state) {
        this.#log(JSON.stringify({
          level: next.state === "unhealthy" ? "warn" : "info",
          msg: next.state === "unhealthy"
            ? "origin unhealthy: admissions paused"
            : "origin healthy again: admissions resumed",
          host: urlHost(cfg.url),
          lastError: next.lastError,
        }));
      }
      return true;
    }, "health probe");
    if (before) this.#drop();
  }
}
