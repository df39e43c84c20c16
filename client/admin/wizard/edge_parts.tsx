/// <reference lib="dom" />
/**
 * The five parts of linking Cloudflare in the edge step, each its own form with its own state
 * and status line: token, zone and hostname, DNS proxy, SSL, custom domain. A part opens once
 * the one before it is done (the server's progress says which).
 */
import type { ComponentChildren } from "preact";
import type { StateUpdater } from "preact/hooks";
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { ActionForm, Input } from "../forms.tsx";
import { Status, useAction } from "../ui.tsx";
import type { StepProps } from "./types.ts";

/** The edge setup API the parts call. */
export const E = "/api/admin/setup/edge";

/** A DNS record of the hostname, as the zone part lists it. */
export interface RecordView {
  type: string;
  name: string;
  content: string;
  proxied: boolean;
}

/** Sets the listed records (null: not read yet). */
type SetRecords = (v: StateUpdater<RecordView[] | null>) => void;

/** Calls the edge setup API, then re-reads the progress so the next part opens. */
async function edgeCall<T>(p: StepProps, method: string, path: string, body?: unknown) {
  const out = await api<T>(method, E + path, body);
  await p.reload();
  return out;
}

/** One part of the step: a numbered fieldset, disabled until its turn, marked when done. */
function Part(
  p: { title: string; done: boolean; open: boolean; children: ComponentChildren },
) {
  return (
    <fieldset class={`wz-part${p.done ? " done" : ""}`} disabled={!p.open}>
      <legend>
        {p.title}
        {p.done && <span class="wz-done">Done</span>}
      </legend>
      {p.children}
    </fieldset>
  );
}

/** Part 1: verify the API token (kept sealed on the server, never shown again). */
export function TokenPart(p: StepProps) {
  const e = p.progress?.edge;
  const [token, setToken] = useState("");
  const tok = useAction();
  return (
    <Part title="1. API token" done={!!e?.token} open>
      <ActionForm
        act={tok}
        submit="Verify token"
        onSubmit={async () => {
          const out = await tok.run(
            () => edgeCall<{ keptLaterSteps: boolean }>(p, "POST", "/token-verify", { token }),
          );
          if (out) {
            tok.setStatus({
              kind: "ok",
              text: out.keptLaterSteps
                ? "Token verified (same token: later parts kept)."
                : "Token verified.",
            });
            setToken("");
          }
        }}
      >
        <Input
          label="Cloudflare API token"
          name="token"
          hint={e?.token
            ? "A verified token is kept (sealed). Paste one again to replace it."
            : undefined}
          type="password"
          autocomplete="off"
          required
          value={token}
          onValue={setToken}
        />
      </ActionForm>
    </Part>
  );
}

/** Part 2: find the zone and check the hostname lies in it; lists the hostname's records. */
export function ZonePart(
  p: StepProps & { records: RecordView[] | null; setRecords: SetRecords },
) {
  const e = p.progress?.edge;
  const [zone, setZone] = useState(e?.zoneName ?? "");
  const [hostname, setHostname] = useState(e?.hostname ?? "");
  const ver = useAction();
  const records = p.records;
  return (
    <Part title="2. Zone and hostname" done={!!e?.zone} open={!!e?.token}>
      <ActionForm
        act={ver}
        submit="Find zone"
        onSubmit={async () => {
          const out = await ver.run(
            () => edgeCall<{ records: RecordView[] }>(p, "POST", "/verify", { zone, hostname }),
            "Zone found; the hostname lies in it.",
          );
          if (out) p.setRecords(out.records);
        }}
        after={records && (
          <ul class="wz-records" aria-label="DNS records of the hostname">
            {records.length === 0 && <li>No DNS record yet: the next part can create one.</li>}
            {records.map((r) => (
              <li key={r.type + r.content}>
                {r.type} {r.name} → {r.content} ({r.proxied ? "proxied" : "not proxied"})
              </li>
            ))}
          </ul>
        )}
      >
        <Input
          label="Zone (domain)"
          name="zone"
          hint="e.g. example.com"
          required
          autocomplete="off"
          value={zone}
          onValue={setZone}
        />
        <Input
          label="Hostname of the waiting room"
          name="hostname"
          hint="e.g. queue.example.com"
          required
          autocomplete="off"
          value={hostname}
          onValue={setHostname}
        />
      </ActionForm>
    </Part>
  );
}

/** What the fix call reports: the DNS records switched or created, and geolocation. */
interface FixOut {
  dns: { changed: unknown[]; created: unknown };
  ipGeolocation: { changed: boolean };
}

/** Part 3: proxy the hostname's DNS through Cloudflare and turn IP geolocation on. */
export function FixPart(p: StepProps & { setRecords: SetRecords }) {
  const e = p.progress?.edge;
  const [target, setTarget] = useState("");
  const fix = useAction();
  return (
    <Part title="3. Proxy the hostname" done={!!e?.fix} open={!!e?.zone}>
      <ActionForm
        act={fix}
        submit="Proxy DNS and turn on geolocation"
        onSubmit={async () => {
          const out = await fix.run(() =>
            edgeCall<FixOut>(p, "POST", "/fix", target.trim() ? { target: target.trim() } : {})
          );
          if (out) {
            const d = out.dns;
            // The list above was read before this part: every record of the hostname is
            // proxied now, so it must not still say "not proxied".
            p.setRecords((rs) => rs && rs.map((r) => ({ ...r, proxied: true })));
            fix.setStatus({
              kind: "ok",
              text: `DNS proxied through Cloudflare (${
                d.created ? "record created" : `${d.changed.length} record(s) switched`
              }); IP geolocation ${out.ipGeolocation.changed ? "turned on" : "already on"}.`,
            });
          }
        }}
      >
        <Input
          label="Origin address (only if the hostname has no DNS record)"
          name="target"
          hint="IP address or hostname of this service; leave empty to proxy existing records"
          autocomplete="off"
          value={target}
          onValue={setTarget}
        />
      </ActionForm>
    </Part>
  );
}

/** Part 4: set the zone's SSL mode to Full (strict), or skip when managed elsewhere. */
export function SslPart(p: StepProps) {
  const e = p.progress?.edge;
  const ssl = useAction();
  return (
    <Part title="4. Encryption (SSL)" done={!!e?.ssl} open={!!e?.fix}>
      <p>
        Full (strict) makes Cloudflare check this service's certificate. Skip only if you manage the
        zone's SSL mode yourself.
      </p>
      <div class="actions">
        <button
          type="button"
          class="primary"
          disabled={ssl.busy}
          onClick={() =>
            ssl.run(
              () => edgeCall(p, "PUT", "/ssl", { mode: "strict" }),
              "SSL set to Full (strict).",
            )}
        >
          Set Full (strict)
        </button>
        <button
          type="button"
          disabled={ssl.busy}
          onClick={() =>
            ssl.run(() => edgeCall(p, "PUT", "/ssl", { skip: true }), "SSL step skipped.")}
        >
          Skip
        </button>
      </div>
      <Status s={ssl.status} />
    </Part>
  );
}

/** Part 5 (optional): attach a custom domain that points at the hostname. */
export function DomainPart(p: StepProps) {
  const e = p.progress?.edge;
  const [domain, setDomain] = useState("");
  const att = useAction();
  return (
    <Part title="5. Custom domain (optional)" done={!!e?.domains.length} open={!!e?.zone}>
      <ActionForm
        act={att}
        submit="Attach domain"
        onSubmit={async () => {
          const out = await att.run(() =>
            edgeCall<{ attached: { domain: string; created: boolean } }>(
              p,
              "POST",
              "/attach-domain",
              { domain },
            )
          );
          if (out) {
            att.setStatus({
              kind: "ok",
              text: `${out.attached.domain} ${
                out.attached.created ? "attached" : "was already attached"
              }.`,
            });
            setDomain("");
          }
        }}
      >
        {!!e?.domains.length && <p>Attached: {e.domains.join(", ")}</p>}
        <Input
          label="Custom domain"
          name="domain"
          hint="e.g. shop.example.com: points at the hostname"
          autocomplete="off"
          required
          value={domain}
          onValue={setDomain}
        />
      </ActionForm>
    </Part>
  );
}
