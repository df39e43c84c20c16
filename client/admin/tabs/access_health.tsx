/// <reference lib="dom" />
/**
 * The origin health throttle of the Access tab: its probe settings, the state admissions follow
 * now, and the operator override (force healthy or unhealthy, or clear it).
 */
import { useEffect, useState } from "preact/hooks";
import { api, messageOf } from "../api.ts";
import { confirmAction, Field, localTime, Section, Status, useAction } from "../ui.tsx";

type Health = "healthy" | "unhealthy" | "unknown" | string;

interface HealthView {
  config: {
    enabled: boolean;
    url: string;
    intervalSeconds: number;
    timeoutMs: number;
    failures: number;
    recoveries: number;
    updatedAt: number | null;
  };
  override: "healthy" | "unhealthy" | null;
  snapshot: {
    state: Health;
    probed: Health;
    override: "healthy" | "unhealthy" | null;
    consecutiveFailures: number;
    consecutiveSuccesses: number;
    lastCheckedAt: number | null;
    lastError: string | null;
  };
}

const NUMS = [
  ["intervalSeconds", "Probe every (seconds)"],
  ["timeoutMs", "Timeout (ms)"],
  ["failures", "Failures in a row that pause"],
  ["recoveries", "Successes in a row that resume"],
] as const;

type Form = { enabled: boolean; url: string } & Record<(typeof NUMS)[number][0], string>;

export function HealthSection() {
  const [view, setView] = useState<HealthView | null>(null);
  const [form, setForm] = useState<Form | null>(null);
  const cfg = useAction();
  const ovr = useAction();
  const show = (v: HealthView) => {
    setView(v);
    const c = v.config;
    setForm({
      enabled: c.enabled,
      url: c.url,
      intervalSeconds: String(c.intervalSeconds),
      timeoutMs: String(c.timeoutMs),
      failures: String(c.failures),
      recoveries: String(c.recoveries),
    });
  };
  useEffect(() => {
    api<HealthView>("GET", "/api/admin/health").then(show).catch((e) =>
      cfg.setStatus({ kind: "error", text: messageOf(e) })
    );
  }, []);
  const set = (k: keyof Form, v: string | boolean) => form && setForm({ ...form, [k]: v });

  const saveConfig = () =>
    form && cfg.run(async () => {
      const body: Record<string, unknown> = { enabled: form.enabled, url: form.url.trim() };
      for (const [k] of NUMS) if (form[k].trim()) body[k] = Number(form[k]);
      show(await api<HealthView>("PUT", "/api/admin/health", body));
    }, "Saved.");

  const override = async (o: "healthy" | "unhealthy" | null) => {
    if (
      o === "unhealthy" &&
      !await confirmAction(
        "Force the origin unhealthy? Admissions pause until you clear the override.",
        "Force unhealthy",
      )
    ) return;
    await ovr.run(
      async () => show(await api<HealthView>("PUT", "/api/admin/health", { override: o })),
      o ? `Forced ${o}.` : "Override cleared: the probe decides again.",
    );
  };

  const s = view?.snapshot;
  return (
    <Section title="Origin health throttle" id="health">
      <p class="muted">
        Probes your origin and pauses admissions while it fails; resumes once it recovers.
      </p>
      {s && (
        <dl class="kv" data-testid="health-state">
          <dt>Admissions follow</dt>
          <dd>
            <strong>{s.state}</strong>
            {s.override ? ` (forced ${s.override} by an operator)` : ""}
          </dd>
          <dt>Probe says</dt>
          <dd>
            {s.probed}; {s.consecutiveFailures} failures, {s.consecutiveSuccesses}{" "}
            successes in a row
          </dd>
          <dt>Last probe</dt>
          <dd>{localTime(s.lastCheckedAt)}</dd>
          {s.lastError && (
            <>
              <dt>Last error</dt>
              <dd>{s.lastError}</dd>
            </>
          )}
        </dl>
      )}
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
          disabled={ovr.busy || !view?.override}
          onClick={() => override(null)}
        >
          Clear override
        </button>
      </div>
      <Status s={ovr.status} />
      <h3>Probe settings</h3>
      {form && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            saveConfig();
          }}
        >
          <div class="field inline">
            <input
              id="health-on"
              type="checkbox"
              checked={form.enabled}
              onChange={(e) => set("enabled", (e.target as HTMLInputElement).checked)}
            />
            <label for="health-on">Probe the origin</label>
          </div>
          <Field label="Health URL" hint="http:// or https://; a 2xx answer counts as healthy.">
            {(id) => (
              <input
                id={id}
                type="url"
                value={form.url}
                onInput={(e) => set("url", (e.target as HTMLInputElement).value)}
              />
            )}
          </Field>
          <div class="grid">
            {NUMS.map(([k, label]) => (
              <Field key={k} label={label}>
                {(id) => (
                  <input
                    id={id}
                    type="number"
                    min={1}
                    inputMode="numeric"
                    value={form[k]}
                    onInput={(e) => set(k, (e.target as HTMLInputElement).value)}
                  />
                )}
              </Field>
            ))}
          </div>
          <div class="actions">
            <button type="submit" disabled={cfg.busy}>Save health settings</button>
          </div>
          <Status s={cfg.status} />
        </form>
      )}
    </Section>
  );
}
