/// <reference lib="dom" />
/**
 * Step 2: link the Cloudflare zone in front of the service. In order: check the API token, find
 * the zone and hostname, proxy the hostname's DNS (and turn IP geolocation on), set SSL to Full
 * (strict) or skip; optionally attach a custom domain. Each part shows the server's answer next
 * to its own form; a part opens once the one before it is done. Or go on without an edge network.
 */
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { ActionForm, Input } from "../forms.tsx";
import { Status, useAction } from "../ui.tsx";
import { edgeDone, type StepProps } from "./types.ts";

const E = "/api/admin/setup/edge";

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

interface RecordView {
  type: string;
  name: string;
  content: string;
  proxied: boolean;
}

/** The way past this step without an edge network (its own setup step on the server). */
function NoEdge(p: StepProps) {
  const act = useAction();
  const chosen = !!p.progress?.edge.none;
  return (
    <fieldset class={`wz-noedge${chosen ? " done" : ""}`}>
      <legend>
        I don't use Cloudflare
        {chosen && <span class="wz-done">Chosen</span>}
      </legend>
      <p>
        Choose this when Tollgate runs behind your own proxy (nginx, Caddy) or is served directly
        (Deno Deploy). What changes: no country block from an edge's country header unless your
        proxy sets one (<code>GEO_COUNTRY_HEADER</code>), and sign-in uses the built-in bot check.
        You can link Cloudflare later on the Edge tab.
      </p>
      <div class="actions">
        <button
          type="button"
          class={chosen ? "" : "primary"}
          disabled={act.busy}
          onClick={async () => {
            const out = await act.run(async () => {
              await api("POST", E + "/none");
              return await p.reload();
            }, "Recorded: no edge network.");
            if (out) p.next();
          }}
        >
          Continue without Cloudflare
        </button>
      </div>
      <Status s={act.status} />
    </fieldset>
  );
}

export function EdgeStep(p: StepProps) {
  const e = p.progress?.edge;
  const [token, setToken] = useState("");
  const [zone, setZone] = useState(e?.zoneName ?? "");
  const [hostname, setHostname] = useState(e?.hostname ?? "");
  const [target, setTarget] = useState("");
  const [domain, setDomain] = useState("");
  const [records, setRecords] = useState<RecordView[] | null>(null);
  const tok = useAction(), ver = useAction(), fix = useAction(), ssl = useAction();
  const att = useAction();
  const live = !!p.progress?.live.edge && !e?.token;
  const step = async <T,>(method: string, path: string, body?: unknown) => {
    const out = await api<T>(method, E + path, body);
    await p.reload();
    return out;
  };

  return (
    <div class="wz-edge">
      <NoEdge {...p} />
      <h3>Or link Cloudflare</h3>
      <p>
        Create a Cloudflare API token with the permissions Zone:Read, DNS:Edit, Zone Settings:Edit
        and Account:Turnstile:Edit, then follow the parts below.
      </p>
      {live && <p class="status ok">An edge link is already live. Continue, or link again.</p>}
      <Part title="1. API token" done={!!e?.token} open>
        <ActionForm
          act={tok}
          submit="Verify token"
          onSubmit={async () => {
            const out = await tok.run(
              () => step<{ keptLaterSteps: boolean }>("POST", "/token-verify", { token }),
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

      <Part title="2. Zone and hostname" done={!!e?.zone} open={!!e?.token}>
        <ActionForm
          act={ver}
          submit="Find zone"
          onSubmit={async () => {
            const out = await ver.run(
              () => step<{ records: RecordView[] }>("POST", "/verify", { zone, hostname }),
              "Zone found; the hostname lies in it.",
            );
            if (out) setRecords(out.records);
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
            hint="e.g. example.com"
            required
            autocomplete="off"
            value={zone}
            onValue={setZone}
          />
          <Input
            label="Hostname of the waiting room"
            hint="e.g. queue.example.com"
            required
            autocomplete="off"
            value={hostname}
            onValue={setHostname}
          />
        </ActionForm>
      </Part>

      <Part title="3. Proxy the hostname" done={!!e?.fix} open={!!e?.zone}>
        <ActionForm
          act={fix}
          submit="Proxy DNS and turn on geolocation"
          onSubmit={async () => {
            const out = await fix.run(() =>
              step<
                {
                  dns: { changed: unknown[]; created: unknown };
                  ipGeolocation: { changed: boolean };
                }
              >(
                "POST",
                "/fix",
                target.trim() ? { target: target.trim() } : {},
              )
            );
            if (out) {
              const d = out.dns;
              // The list above was read before this part: every record of the hostname is
              // proxied now, so it must not still say "not proxied".
              setRecords((rs) => rs && rs.map((r) => ({ ...r, proxied: true })));
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
            hint="IP address or hostname of this service; leave empty to proxy existing records"
            autocomplete="off"
            value={target}
            onValue={setTarget}
          />
        </ActionForm>
      </Part>

      <Part title="4. Encryption (SSL)" done={!!e?.ssl} open={!!e?.fix}>
        <p>
          Full (strict) makes Cloudflare check this service's certificate. Skip only if you manage
          the zone's SSL mode yourself.
        </p>
        <div class="actions">
          <button
            type="button"
            class="primary"
            disabled={ssl.busy}
            onClick={() =>
              ssl.run(() => step("PUT", "/ssl", { mode: "strict" }), "SSL set to Full (strict).")}
          >
            Set Full (strict)
          </button>
          <button
            type="button"
            disabled={ssl.busy}
            onClick={() => ssl.run(() => step("PUT", "/ssl", { skip: true }), "SSL step skipped.")}
          >
            Skip
          </button>
        </div>
        <Status s={ssl.status} />
      </Part>

      <Part title="5. Custom domain (optional)" done={!!e?.domains.length} open={!!e?.zone}>
        <ActionForm
          act={att}
          submit="Attach domain"
          onSubmit={async () => {
            const out = await att.run(() =>
              step<{ attached: { domain: string; created: boolean } }>(
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
            hint="e.g. shop.example.com: points at the hostname"
            autocomplete="off"
            required
            value={domain}
            onValue={setDomain}
          />
        </ActionForm>
      </Part>

      <div class="actions">
        <button type="button" class="primary" disabled={!edgeDone(p.progress)} onClick={p.next}>
          Continue
        </button>
        {!edgeDone(p.progress) && <span class="muted">Parts 1 to 4 must be done first.</span>}
      </div>
    </div>
  );
}
