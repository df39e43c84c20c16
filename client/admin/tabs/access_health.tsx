/// <reference lib="dom" />
/**
 * The origin health throttle of the Access tab: its probe settings, the state admissions follow
 * now, and the operator override (force healthy or unhealthy, or clear it).
 */
import { useState } from "preact/hooks";
import type {
  HealthConfig,
  HealthOverride,
  HealthSnapshot,
} from "../../../lib/access/health_config.ts";
import { api } from "../api.ts";
import { ActionForm, Check, Input, useLoad } from "../forms.tsx";
import { confirmReplace, savedElsewhere } from "../stale.ts";
import {
  confirmAction,
  localTime,
  POLL_MS,
  Section,
  Status,
  useAction,
  usePolling,
} from "../ui.tsx";

/** `GET /api/admin/health`: the config (never the override inside it), the override, the snapshot. */
interface HealthView {
  config: Omit<HealthConfig, "override" | "rev">;
  override: HealthOverride;
  snapshot: HealthSnapshot;
}

const NUMS = [
  ["intervalSeconds", "Probe every (seconds)"],
  ["timeoutMs", "Timeout (ms)"],
  ["failures", "Failures in a row that pause"],
  ["recoveries", "Successes in a row that resume"],
] as const;

type Form = { enabled: boolean; url: string } & Record<(typeof NUMS)[number][0], string>;

/** Each field's label (named when another tab saved it too). */
const FIELD_LABELS = {
  enabled: "Probe the origin",
  url: "Health URL",
  ...Object.fromEntries(NUMS),
} as Record<keyof Form, string>;

/** The form's fields as the config has them (numbers as the text inputs hold them). */
function formOf(c: HealthView["config"]): Form {
  return {
    enabled: c.enabled,
    url: c.url,
    intervalSeconds: String(c.intervalSeconds),
    timeoutMs: String(c.timeoutMs),
    failures: String(c.failures),
    recoveries: String(c.recoveries),
  };
}

/** The state admissions follow now, and what the probe last said. */
function HealthState({ s }: { s: HealthSnapshot }) {
  return (
    <dl class="kv" data-testid="health-state">
      <dt>Admissions follow</dt>
      <dd>
        <strong>{followsText(s)}</strong>
        {s.override ? ` (forced ${s.override} by an operator)` : ""}
      </dd>
      <dt>Probe says</dt>
      <dd>
        {s.lastCheckedAt
          ? `${s.probed}; ${s.consecutiveFailures} failures, ${s.consecutiveSuccesses} ` +
            "successes in a row"
          : "no probe has run yet"}
      </dd>
      <dt>Last probe</dt>
      <dd>{s.lastCheckedAt ? localTime(s.lastCheckedAt) : "none yet"}</dd>
      {s.lastError && (
        <>
          <dt>Last error</dt>
          <dd>{s.lastError}</dd>
        </>
      )}
    </dl>
  );
}

/** Forcing healthy or unhealthy (asked again: it pauses admissions), or clearing the override. */
function OverrideControls(p: { overridden: boolean; onChanged: (v: HealthView) => void }) {
  const ovr = useAction();
  const override = async (o: "healthy" | "unhealthy" | null) => {
    if (
      o === "unhealthy" &&
      !await confirmAction(
        "Force the origin unhealthy? Admissions pause until you clear the override.",
        "Force unhealthy",
      )
    ) return;
    await ovr.run(
      async () => p.onChanged(await api<HealthView>("PUT", "/api/admin/health", { override: o })),
      o ? `Forced ${o}.` : "Override cleared: the probe decides again.",
    );
  };

  return (
    <>
      <h3>Override</h3>
      <div class="actions">
        <button type="button" disabled={ovr.busy} onClick={() => override("healthy")}>
          Force healthy
        </button>
        <button
          type="button"
          class="danger"
          disabled={ovr.busy}
          onClick={() => override("unhealthy")}
        >
          Force unhealthy
        </button>
        <button
          type="button"
          disabled={ovr.busy || !p.overridden}
          onClick={() => override(null)}
        >
          Clear override
        </button>
      </div>
      <Status s={ovr.status} />
    </>
  );
}

/** The probe settings: on or off, the URL, and its numbers. */
function ProbeFields(p: { form: Form; set: (k: keyof Form, v: string | boolean) => void }) {
  return (
    <>
      <Check
        id="health-on"
        label="Probe the origin"
        checked={p.form.enabled}
        onChange={(v) => p.set("enabled", v)}
      />
      <Input
        label="Health URL"
        name="url"
        hint="http:// or https://; a 2xx answer counts as healthy."
        type="url"
        value={p.form.url}
        onValue={(v) => p.set("url", v)}
      />
      <div class="grid">
        {NUMS.map(([k, label]) => (
          <Input
            key={k}
            label={label}
            name={k}
            type="number"
            min={1}
            inputMode="numeric"
            value={p.form[k]}
            onValue={(v) => p.set(k, v)}
          />
        ))}
      </div>
    </>
  );
}

/** The origin health throttle: its state, the override, and the probe settings. */
export function HealthSection() {
  const [view, setView] = useState<HealthView | null>(null);
  const [form, setForm] = useState<Form | null>(null);
  // The settings as the form was filled (polling moves `view`, not this): see saveConfig.
  const [base, setBase] = useState<Form | null>(null);
  const cfg = useAction();
  const show = (v: HealthView) => {
    setView(v);
    setForm(formOf(v.config));
    setBase(formOf(v.config));
  };
  useLoad("/api/admin/health", show, cfg);
  // The state changes by itself (every probe): refresh it, never the form being edited.
  usePolling(
    () => {
      api<HealthView>("GET", "/api/admin/health").then(setView).catch(() => {});
    },
    POLL_MS,
    [],
  );
  const set = (k: keyof Form, v: string | boolean) => form && setForm({ ...form, [k]: v });

  const saveConfig = () =>
    form && cfg.run(async () => {
      // The record is written whole: a field another tab saved since, left alone here, is kept.
      const mine = { ...form };
      if (base) {
        const stored = formOf((await api<HealthView>("GET", "/api/admin/health")).config);
        const keys = Object.keys(mine) as (keyof Form)[];
        const { kept, clash } = savedElsewhere(keys, (k) =>
          base[k], (k) =>
          stored[k], (k) =>
          mine[k]);
        await confirmReplace(clash.map((k) =>
          FIELD_LABELS[k]
        ));
        for (const k of kept) (mine as Record<string, unknown>)[k] = stored[k];
      }
      const body: Record<string, unknown> = { enabled: mine.enabled, url: mine.url.trim() };
      for (const [k] of NUMS) if (mine[k].trim()) body[k] = Number(mine[k]);
      show(await api<HealthView>("PUT", "/api/admin/health", body));
    }, "Saved.");

  return (
    <Section title="Origin health throttle" id="health">
      <p class="muted">
        Probes your origin and pauses admissions while it fails; resumes once it recovers.
      </p>
      {view && <HealthState s={view.snapshot} />}
      {/* The override changes no probe setting: the form being edited stays as typed. */}
      <OverrideControls overridden={!!view?.override} onChanged={setView} />
      <h3>Probe settings</h3>
      {form && (
        <ActionForm act={cfg} submit="Save health settings" onSubmit={saveConfig}>
          <ProbeFields form={form} set={set} />
        </ActionForm>
      )}
    </Section>
  );
}

/** What admissions follow, in words that never claim a probe result no probe gave. */
function followsText(s: HealthSnapshot): string {
  if (s.override) return s.state;
  // The health throttle never runs admissions, it only holds them: a paused queue stays paused.
  if (s.state === "unmonitored") {
    return "not monitored (the origin's health never holds admissions)";
  }
  if (!s.lastCheckedAt) return "not probed yet (admissions are held only once probes fail)";
  return s.state === "unhealthy" ? "unhealthy: admissions are paused" : "healthy";
}
