/// <reference lib="dom" />
/**
 * The Edge tab (Cloudflare): the live link (zone, hostname and a write-only API token), the
 * checks, the fixes (proxied DNS, Full (strict) encryption, IP geolocation) and custom domains.
 * A provider failure is shown next to the control that caused it, with Cloudflare's own codes.
 */
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.ts";
import type { TabProps } from "../boot.ts";
import { ActionForm, Input } from "../forms.tsx";
import { confirmAction, localTime, Section, Status, useAction } from "../ui.tsx";
import { DomainsSection } from "./edge_domains.tsx";
import { edgeCall, edgeMessage } from "./edge_errors.tsx";

interface EdgeLink {
  linked: boolean;
  zoneName?: string;
  hostname?: string;
  ssl?: "strict" | "skipped";
  domains?: string[];
  linkedAt?: number;
  hasToken?: boolean;
  tokenReadable?: boolean;
}

/** The PUT body: only what differs from the link (a blank field keeps its value). */
function changedFields(
  link: EdgeLink,
  zone: string,
  host: string,
  token: string,
): Record<string, string> {
  const body: Record<string, string> = {};
  if (zone.trim() && zone.trim() !== link.zoneName) body.zone = zone.trim();
  if (host.trim() && host.trim() !== link.hostname) body.hostname = host.trim();
  if (token.trim()) body.token = token.trim();
  return body;
}

/** The saved link's report: a replaced token, and custom domains no longer tracked. */
function linkSavedText(out: { tokenReplaced?: boolean; untrackedDomains?: string[] }): string {
  const extra = out.untrackedDomains?.length
    ? ` No longer tracked: ${out.untrackedDomains.join(", ")}.`
    : "";
  return `Saved${out.tokenReplaced ? " (token replaced)" : ""}.${extra}`;
}

/** The edge link: zone, hostname and token, each changed only when typed. */
function LinkSection({ link, onSaved }: { link: EdgeLink; onSaved: () => void }) {
  const [zone, setZone] = useState(link.zoneName ?? "");
  const [host, setHost] = useState(link.hostname ?? "");
  const [token, setToken] = useState("");
  const act = useAction();
  const save = async () => {
    const body = changedFields(link, zone, host, token);
    if (!Object.keys(body).length) {
      act.setStatus({ kind: "error", text: "Nothing changed." });
      return;
    }
    if (
      (body.zone || body.hostname) && link.domains?.length &&
      !await confirmAction(
        "Changing the zone or hostname stops tracking your custom domains (their DNS records " +
          "stay). Continue?",
        "Save",
      )
    ) return;
    const out = await act.run(() => edgeCall(() => api("PUT", "/api/admin/edge", body)));
    if (out) {
      setToken("");
      act.setStatus({ kind: "ok", text: linkSavedText(out) });
      onSaved();
    }
  };
  return (
    <Section title="Cloudflare link" id="edge-link">
      <p class="muted">
        {link.linked
          ? `Linked since ${localTime(link.linkedAt)}. API token: ${
            !link.hasToken
              ? "none"
              : link.tokenReadable === false
              ? "unreadable (TOKEN_SECRET changed): paste it again"
              : "stored (never shown)"
          }.`
          : "Not linked: Tollgate runs without an edge network (visitors reach it directly or " +
            "through your own proxy). To link Cloudflare, save its zone, hostname and an API " +
            "token here."}
      </p>
      <ActionForm act={act} submit="Save link" onSubmit={save}>
        <Input
          label="Zone"
          name="zone"
          hint="The Cloudflare zone, e.g. example.com."
          autocomplete="off"
          value={zone}
          onValue={setZone}
        />
        <Input
          label="Hostname"
          name="hostname"
          hint="Where the waiting room runs, e.g. queue.example.com."
          autocomplete="off"
          value={host}
          onValue={setHost}
        />
        <Input
          label="New API token"
          name="token"
          hint="Write-only: leave empty to keep the stored token. It is never shown back."
          type="password"
          autocomplete="off"
          spellcheck={false}
          value={token}
          onValue={setToken}
        />
      </ActionForm>
    </Section>
  );
}

interface CheckItem {
  item: string;
  ok: boolean;
  message: string;
}

/** Runs the zone's checks and shows them; the status counts the problems. */
async function runChecks(setItems: (v: CheckItem[]) => void): Promise<string> {
  const r = await edgeCall(() =>
    api<{ ok: boolean; items: CheckItem[] }>("POST", "/api/admin/edge/check")
  );
  setItems(r.items);
  const bad = r.items.filter((i) => !i.ok).length;
  return r.ok ? "Everything checks out." : `${bad} ${bad === 1 ? "problem" : "problems"} found.`;
}

/** Proxies the hostname's DNS (creating its record at `target` if none) and turns geolocation on. */
async function fixProxyWords(target: string): Promise<string> {
  const body = target.trim() ? { target: target.trim() } : {};
  const r = await edgeCall(() => api("POST", "/api/admin/edge/fix-proxy", body));
  const n = r.dns.changed.length;
  return `DNS: ${n} record${n === 1 ? "" : "s"} switched to proxied${
    r.dns.created ? `, created ${r.dns.created.type} ${r.dns.created.name}` : ""
  }. IP geolocation: ${r.ipGeolocation.value}${r.ipGeolocation.changed ? " (changed)" : ""}.`;
}

/** Sets the zone's encryption mode to Full (strict). */
async function strictWords(): Promise<string> {
  const r = await edgeCall(() => api("PUT", "/api/admin/edge/ssl", {}));
  return `Encryption mode: ${r.sslMode}${r.changed ? " (changed)" : " (already set)"}.`;
}

/** Turns IP geolocation on or off (off clears the country block, which needs it). */
async function geoWords(enabled: boolean): Promise<string> {
  const r = await edgeCall(() => api("PUT", "/api/admin/edge/ip-geolocation", { enabled }));
  return `IP geolocation is ${r.enabled ? "on" : "off"}${r.changed ? "" : " (no change)"}.${
    r.countryBlockCleared ? " The country block was cleared." : ""
  }`;
}

/** The check results, each passed or failed in words as well as a mark. */
function CheckList({ items }: { items: CheckItem[] }) {
  return (
    <ul class="checks" aria-label="Check results">
      {items.map((i) => (
        <li key={i.item} class={i.ok ? "ok" : "bad"}>
          <span aria-hidden="true">{i.ok ? "✓" : "✗"}</span> <strong>{i.item}</strong>
          <span class="sr-only">{i.ok ? " passed" : " failed"}</span>: {i.message}
        </li>
      ))}
    </ul>
  );
}

/** The zone's checks, and the fixes for proxied DNS, encryption and IP geolocation. */
function ChecksSection() {
  const [items, setItems] = useState<CheckItem[] | null>(null);
  const [target, setTarget] = useState("");
  const check = useAction();
  const fix = useAction();
  const ssl = useAction();
  const geo = useAction();
  // The checks are the tab's view of the zone's current state (proxied DNS, encryption mode,
  // IP geolocation): read when the tab opens and again after every change made here.
  useEffect(() => {
    run();
  }, []);
  const after = async <T,>(out: T | undefined) => {
    if (out) await run();
    return out;
  };
  const run = () => check.run(() => runChecks(setItems));
  const fixProxy = async () =>
    await after(
      await fix.run(() => fixProxyWords(target)),
    );
  const strict = async () =>
    await after(
      await ssl.run(strictWords),
    );
  const setGeo = async (enabled: boolean) => {
    if (
      !enabled &&
      !await confirmAction(
        "Turn IP geolocation off? Cloudflare stops sending the visitor country, so the country " +
          "block will be cleared.",
        "Turn off",
      )
    ) return;
    await after(
      await geo.run(() => geoWords(enabled)),
    );
  };
  return (
    <Section title="Checks and fixes" id="edge-checks">
      <p class="muted">
        The zone as Cloudflare reports it now (read when this tab opens and after each change).
      </p>
      <div class="actions">
        <button type="button" class="primary" disabled={check.busy} onClick={run}>
          Run checks again
        </button>
      </div>
      <Status s={check.status} />
      {items && <CheckList items={items} />}
      <h3>Proxied DNS</h3>
      <ActionForm act={fix} submit="Proxy DNS and turn on IP geolocation" onSubmit={fixProxy}>
        <Input
          label="Point a missing hostname record to (optional)"
          name="target"
          hint="Only used when the hostname has no record yet: an IPv4/IPv6 address or a name."
          autocomplete="off"
          value={target}
          onValue={setTarget}
        />
      </ActionForm>
      <h3>Encryption</h3>
      <div class="actions">
        <button type="button" disabled={ssl.busy} onClick={strict}>
          Set Full (strict) encryption
        </button>
      </div>
      <Status s={ssl.status} />
      <h3>IP geolocation</h3>
      <p class="muted">Needed by the country block (Access tab).</p>
      <div class="actions">
        <button type="button" disabled={geo.busy} onClick={() => setGeo(true)}>
          Turn IP geolocation on
        </button>
        <button type="button" class="danger" disabled={geo.busy} onClick={() => setGeo(false)}>
          Turn IP geolocation off
        </button>
      </div>
      <Status s={geo.status} />
    </Section>
  );
}

export function EdgeTab(_: TabProps) {
  const [link, setLink] = useState<EdgeLink | null>(null);
  const [err, setErr] = useState("");
  const load = () =>
    api<EdgeLink>("GET", "/api/admin/edge").then(setLink).catch((e) => setErr(edgeMessage(e)));
  useEffect(() => {
    load();
  }, []);
  if (err) return <p class="status error" role="alert">{err}</p>;
  if (!link) return <p>Loading…</p>;
  return (
    <div class="tab-edge">
      <LinkSection link={link} onSaved={load} />
      {link.linked && (
        <>
          <ChecksSection />
          <DomainsSection key={`${link.zoneName} ${link.hostname}`} />
        </>
      )}
    </div>
  );
}
