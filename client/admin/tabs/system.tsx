/// <reference lib="dom" />
/**
 * The System tab: the running version and the update check, webhooks (with a test delivery and a
 * signing secret shown once), the turn e-mail's SMTP server, your own password and recovery phrase, and how to factory-reset
 * (bearer-only: explained, never a button).
 */
import { useEffect, useState } from "preact/hooks";
import type { UpdateInfo } from "../../../lib/updates.ts";
import { api } from "../api.ts";
import type { TabProps } from "../boot.ts";
import { ActionForm, Check, Input, useLoad } from "../forms.tsx";
import { localTime, OnceValue, Section, Status, useAction } from "../ui.tsx";
import { PasswordSection, RecoverySection, ResetSection } from "./system_account.tsx";
import { MailSection } from "./system_mail.tsx";
import { keepSavedElsewhere } from "./system_webhooks_stale.ts";

function UpdatesSection({ version }: { version: string }) {
  const [info, setInfo] = useState<UpdateInfo | null>(null);
  const act = useAction();
  const load = (refresh: boolean) =>
    act.run(async () => {
      const r = await api<UpdateInfo>("GET", `/api/admin/updates${refresh ? "?refresh=1" : ""}`);
      setInfo(r);
      // A check that failed is said once, in red below, not also as a green "Checked".
      return refresh && !r.error ? `Checked at ${localTime(r.checkedAt)}.` : "";
    });
  useEffect(() => {
    load(false);
  }, []);
  return (
    <Section title="Version" id="version">
      <p>
        Running <strong>{info?.running ?? version}</strong>.
      </p>
      {info && (
        <p data-testid="update-state">
          {info.updateAvailable
            ? (
              <>
                Update available: <strong>{info.latest}</strong>
                {/* The server passes on only https links; an older server may not have. */}
                {info.url?.startsWith("https://") && (
                  <>
                    {" "}(<a href={info.url} target="_blank" rel="noopener noreferrer">
                      release notes
                    </a>)
                  </>
                )}. Updates are never installed automatically.
              </>
            )
            : info.latest
            ? `Up to date (latest release ${info.latest}).`
            : "The latest release is not known yet."}
          <span class="muted">Last checked {localTime(info.checkedAt)}.</span>
        </p>
      )}
      {info?.error && <p class="status error">The last check failed: {info.error}</p>}
      <div class="actions">
        <button type="button" disabled={act.busy} onClick={() => load(true)}>Check now</button>
      </div>
      <Status s={act.status} />
    </Section>
  );
}

const EVENTS = [
  ["pause", "Pause: admissions paused or resumed"],
  ["health", "Health: health settings saved"],
  ["depth", "Depth: the waiting count reaches the threshold"],
] as const;

interface Webhooks {
  enabled: boolean;
  url: string;
  events: string[];
  depthThreshold: number;
  hasSecret: boolean;
  secretUnreadable?: boolean;
}

/** A random signing secret (32 bytes, base64url). */
function newSecret(): string {
  const b = crypto.getRandomValues(new Uint8Array(32));
  return "whsec_" + btoa(String.fromCharCode(...b)).replace(/\+/g, "-").replace(/\//g, "_")
    .replace(/=+$/, "");
}

/** The PUT body: a new secret when one was typed, null to remove it, absent to keep it. */
function webhookBody(
  f: { enabled: boolean; url: string; events: string[]; depth: string },
  sent: string,
  clearSecret: boolean,
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    enabled: f.enabled,
    url: f.url.trim(),
    events: f.events,
    depthThreshold: Number(f.depth),
  };
  if (sent) body.secret = sent;
  else if (clearSecret) body.secret = null;
  return body;
}

/** Sends a test event; its words, or an error saying why it was not delivered. */
async function sendTestEvent(queue: string): Promise<string> {
  const r = await api<{ delivered: boolean; status?: number; error?: string }>(
    "POST",
    "/api/admin/webhooks/test",
    { queue },
  );
  if (!r.delivered) {
    throw new Error(
      `Not delivered: ${r.error ?? "no answer"}${r.status ? ` (HTTP ${r.status})` : ""}.`,
    );
  }
  return `Delivered: the receiver answered HTTP ${r.status}.`;
}

/** The test part: sends one event to the saved receiver (none saved: nothing to send to). */
function WebhookTest(p: { queue: string; url: string | undefined }) {
  const test = useAction();
  return (
    <>
      <h3>Test</h3>
      <div class="actions">
        <button
          type="button"
          disabled={test.busy || !p.url}
          onClick={() => test.run(() => sendTestEvent(p.queue))}
        >
          Send test event
        </button>
      </div>
      <Status s={test.status} />
    </>
  );
}

/** One box per event the receiver hears. */
function EventChecks(
  p: { events: string[]; setEvents: (f: (cur: string[]) => string[]) => void },
) {
  return (
    <fieldset>
      <legend>Events</legend>
      {EVENTS.map(([ev, label]) => (
        <Check
          key={ev}
          id={`wh-ev-${ev}`}
          label={label}
          checked={p.events.includes(ev)}
          onChange={(on) =>
            p.setEvents((cur) =>
              on ? [...cur.filter((x) => x !== ev), ev] : cur.filter((x) => x !== ev)
            )}
        />
      ))}
    </fieldset>
  );
}

/** The signing secret: its state, a new one (typed or generated), or removing it. */
function SecretFields(p: {
  view: Webhooks | null;
  secret: string;
  setSecret: (v: string) => void;
  clearSecret: boolean;
  setClearSecret: (v: boolean) => void;
}) {
  const { view } = p;
  return (
    <>
      <p class="muted" data-testid="wh-secret-state">
        Signing secret: {view?.secretUnreadable
          ? "stored but unreadable (TOKEN_SECRET changed): set a new one."
          : view?.hasSecret
          ? "set (never shown again)."
          : "none: deliveries are unsigned."}
      </p>
      <Input
        label="New signing secret"
        name="secret"
        hint="Leave empty to keep the current one. Receivers check X-Service-Signature with it."
        autocomplete="off"
        spellcheck={false}
        value={p.secret}
        onValue={p.setSecret}
      />
      <div class="actions">
        <button type="button" onClick={() => p.setSecret(newSecret())}>Generate a secret</button>
        {view?.hasSecret && (
          <span class="field inline">
            <input
              id="wh-clear"
              type="checkbox"
              checked={p.clearSecret}
              onChange={(e) => p.setClearSecret((e.target as HTMLInputElement).checked)}
            />
            <label for="wh-clear">Remove the signing secret</label>
          </span>
        )}
      </div>
    </>
  );
}

/** The webhook settings: receiver, events, depth threshold, signing secret; and a test send. */
function WebhooksSection({ queue }: { queue: string }) {
  const [view, setView] = useState<Webhooks | null>(null);
  const [enabled, setEnabled] = useState(false);
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<string[]>([]);
  const [depth, setDepth] = useState("100");
  const [secret, setSecret] = useState("");
  const [clearSecret, setClearSecret] = useState(false);
  const [shown, setShown] = useState<string | null>(null);
  const act = useAction();
  const show = (v: Webhooks) => {
    setView(v);
    setEnabled(v.enabled);
    setUrl(v.url);
    setEvents(v.events);
    setDepth(String(v.depthThreshold));
  };
  const { loaded } = useLoad("/api/admin/webhooks", show, act);
  const save = async () => {
    const sent = secret.trim();
    setShown(null);
    const r = await act.run(async () => {
      const mine = { enabled, url: url.trim(), events, depth };
      if (view) await keepSavedElsewhere(view, mine);
      const body = webhookBody(mine, sent, clearSecret);
      return await api<Webhooks>("PUT", "/api/admin/webhooks", body);
    }, "Saved.");
    if (r) {
      show(r);
      setSecret("");
      setClearSecret(false);
      if (sent) {
        setShown(sent);
        act.setStatus({
          kind: "ok",
          text: "Saved. Copy the signing secret now: it is not shown again.",
        });
      }
    }
  };
  return (
    <Section title="Webhooks" id="webhooks">
      <p class="muted">
        HTTPS POST callbacks for operator events; best effort (5 s timeout, no retries).
      </p>
      <ActionForm
        act={act}
        submit="Save webhooks"
        onSubmit={save}
        loading={!loaded}
        after={shown && <OnceValue value={shown} label="Webhook signing secret" />}
      >
        <Check id="wh-on" label="Send webhooks" checked={enabled} onChange={setEnabled} />
        <Input
          label="Receiver URL"
          name="url"
          hint="https:// only, not this service itself."
          type="url"
          placeholder="https://hooks.example.net/tollgate"
          value={url}
          onValue={setUrl}
        />
        <EventChecks events={events} setEvents={setEvents} />
        <Input
          label="Depth threshold"
          name="depthThreshold"
          hint="Waiting visitors that fire the depth event."
          type="number"
          min={1}
          inputMode="numeric"
          value={depth}
          onValue={setDepth}
        />
        <SecretFields
          view={view}
          secret={secret}
          setSecret={setSecret}
          clearSecret={clearSecret}
          setClearSecret={setClearSecret}
        />
      </ActionForm>
      <WebhookTest queue={queue} url={view?.url} />
    </Section>
  );
}

export function SystemTab({ queue, boot }: TabProps) {
  return (
    <div class="tab-system">
      <UpdatesSection version={boot.version} />
      <WebhooksSection queue={queue} />
      <MailSection />
      <PasswordSection />
      <RecoverySection />
      <ResetSection />
    </div>
  );
}
