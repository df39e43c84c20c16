/// <reference lib="dom" />
/**
 * The Access tab: the country block (with its TTL and when it ends), the IP allowlist (bad lines
 * named next to the text), the origin proxy override, the picked queue's path rules and the
 * origin health throttle.
 */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import type { TabProps } from "../boot.ts";
import { ActionForm, confirmedRun, Input, Radios, useLoad } from "../forms.tsx";
import { Field, localTime, Section, useAction } from "../ui.tsx";
import { checkedSave, editsOf } from "../stale.ts";
import { HealthSection } from "./access_health.tsx";
import { GeoBlockSection } from "./access_geo.tsx";
import { PathRulesSection } from "./access_paths.tsx";

function AllowlistSection() {
  const [text, setText] = useState("");
  // The list as loaded or last saved here (checkedSave's base).
  const [base, setBase] = useState("");
  const [info, setInfo] = useState<{ entries: number; updatedAt: number | null } | null>(null);
  const act = useAction();
  type Bypass = { allowlistText: string; entries: number; updatedAt: number | null };
  const { loaded } = useLoad<Bypass>("/api/admin/bypass", (v) => {
    setText(v.allowlistText);
    setBase(v.allowlistText);
    setInfo(v);
  });
  // A bad line is named under the text (the form's field error), once.
  const save = () =>
    act.run(async () => {
      const f = await checkedSave(
        { text: ["Addresses and ranges", base, text] },
        async () => ({ text: (await api<Bypass>("GET", "/api/admin/bypass")).allowlistText }),
      );
      const v = await api<Bypass>("PUT", "/api/admin/bypass", { allowlistText: f.text });
      setInfo(v);
      setBase(v.allowlistText);
      setText(v.allowlistText);
      return `Saved: ${v.entries} ${v.entries === 1 ? "entry" : "entries"}.`;
    });
  return (
    <Section title="IP allowlist" id="bypass">
      <p class="muted">
        Visitors from these addresses skip the queue and take no slot. Last saved:{" "}
        {localTime(info?.updatedAt)}.
      </p>
      <ActionForm act={act} submit="Save allowlist" onSubmit={save} loading={!loaded}>
        <Field
          label="Addresses and ranges"
          name="allowlistText"
          hint="IPv4 or IPv6 addresses and CIDR ranges, one per line; # starts a comment."
        >
          {(id, errId) => (
            <textarea
              id={id}
              rows={6}
              value={text}
              aria-describedby={errId}
              aria-invalid={!!errId}
              onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
            />
          )}
        </Field>
      </ActionForm>
    </Section>
  );
}

interface OriginView {
  enabled: boolean;
  url: string | null;
  source: "env" | "admin" | "none";
  envUrl: string | null;
  override: { enabled: boolean; url: string | null; updatedAt: number } | null;
}

/** The choice in force: no proxy shows "Off", not an empty URL form. */
function modeOf(v: OriginView): "url" | "env" | "off" {
  const o = v.override;
  return !o ? (v.enabled ? "env" : "off") : !o.enabled ? "off" : o.url ? "url" : "env";
}

/** What is wrong with a typed origin URL, checked before the call; null when nothing. */
function urlProblem(typed: string): string | null {
  if (/^https?:\/\/[^/\s]+/i.test(typed)) return null;
  return typed
    ? "Origin URL must start with http:// or https:// and name a host."
    : "Enter the origin URL to proxy to (http:// or https://), or choose Off.";
}

/** Where admitted visitors go now, and who set it. */
function originStateText(view: OriginView | null): string {
  return !view
    ? "Loading…"
    : view.enabled
    ? `Admitted visitors are proxied to ${view.url} (${
      view.source === "env" ? "from ORIGIN_URL" : "set here"
    }).`
    : `No proxy${view.source === "admin" ? " (turned off here)" : ""}.`;
}

/** The origin proxy: a URL set here, ORIGIN_URL, or off; and removing the override. */
function OriginSection() {
  const [view, setView] = useState<OriginView | null>(null);
  const [mode, setMode] = useState("url");
  const [url, setUrl] = useState("");
  const act = useAction();
  const show = (v: OriginView) => {
    setView(v);
    setMode(modeOf(v));
    setUrl(v.override?.url ?? "");
  };
  /** A stored proxy choice as the form shows it. */
  const formOf = (v: OriginView) => ({ mode: modeOf(v), url: v.override?.url ?? "" });
  const { loaded } = useLoad("/api/admin/origin", show);
  const save = () => {
    const typed = url.trim();
    const wrong = mode === "url" ? urlProblem(typed) : null;
    if (wrong) return act.setStatus({ kind: "error", text: wrong });
    return act.run(async () => {
      const v = await checkedSave(
        editsOf(
          { mode: "Proxy", url: "Origin URL" },
          view ? formOf(view) : { mode, url: typed },
          { mode, url: typed },
        ),
        async () => formOf(await api<OriginView>("GET", "/api/admin/origin")),
      );
      const body = v.mode === "off"
        ? { enabled: false }
        : { enabled: true, url: v.mode === "url" ? v.url : null };
      show(await api<OriginView>("PUT", "/api/admin/origin", body));
    }, "Saved.");
  };
  const remove = () => {
    const back = view?.envUrl ? `back to ORIGIN_URL (${view.envUrl})` : "no proxy";
    return confirmedRun(
      act,
      `Remove the origin override? This goes ${back}.`,
      "Remove",
      async () => {
        show(await api<OriginView>("DELETE", "/api/admin/origin"));
      },
      "Override removed.",
    );
  };
  return (
    <Section title="Origin proxy" id="origin">
      <p data-testid="origin-state">
        {originStateText(view)}
      </p>
      <ActionForm
        act={act}
        submit="Save origin"
        noValidate
        onSubmit={save}
        loading={!loaded}
        buttons={view?.override && (
          <button type="button" class="danger" disabled={act.busy} onClick={remove}>
            Remove override
          </button>
        )}
      >
        <Radios
          legend="Proxy"
          name="origin-mode"
          ids="origin"
          options={[
            ["url", "Proxy to this URL"],
            ...(view?.envUrl ? [["env", `Proxy to ORIGIN_URL (${view.envUrl})`] as const] : []),
            ["off", "Off"],
          ]}
          value={mode}
          onChange={setMode}
        />
        {mode === "url" && (
          <Input
            label="Origin URL"
            name="url"
            hint="http:// or https://, e.g. https://shop.internal:8080"
            type="url"
            required
            value={url}
            onValue={setUrl}
          />
        )}
      </ActionForm>
    </Section>
  );
}

export function AccessTab({ queue }: TabProps) {
  return (
    <div class="tab-access">
      <GeoBlockSection />
      <AllowlistSection />
      <OriginSection />
      <PathRulesSection queue={queue} />
      <HealthSection />
    </div>
  );
}
