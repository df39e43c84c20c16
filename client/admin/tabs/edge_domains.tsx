/// <reference lib="dom" />
/**
 * Custom domains of the Edge tab: each tracked domain with its state in Cloudflare, attach (a
 * proxied CNAME to the hostname) and detach (asks first).
 */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { ActionForm, confirmedRun, Input, RemoveTable, useLoad } from "../forms.tsx";
import { Section, Status, useAction } from "../ui.tsx";
import { edgeCall, edgeMessage } from "./edge_errors.tsx";

interface DomainStatus {
  domain: string;
  state: "ok" | "not_proxied" | "points_elsewhere" | "missing";
  ok: boolean;
  message: string;
}

interface Domains {
  hostname: string;
  zoneName: string;
  domains: DomainStatus[];
}

/** The attach report: what was done to the record, and what admin sign-in there needs. */
function attachedText(a: { domain: string; created?: boolean; changed?: boolean }): string {
  return `Attached ${a.domain}${
    a.created ? " (CNAME created)" : a.changed ? " (record fixed)" : ""
  }. Visitors can use it now. Admin sign-in there needs it in the Turnstile widget, which ` +
    "lists the hostnames it was made for: sign in on the main hostname, or run the setup's " +
    "challenge step again to make a widget that lists this domain too.";
}

/** The detach report: the CNAME deleted, and other records of the name left alone. */
function detachedText(out: { domain: string; deleted?: boolean; leftAlone?: unknown[] }): string {
  return `Detached ${out.domain}${out.deleted ? " (CNAME deleted)" : ""}.${
    out.leftAlone?.length ? ` Left alone: ${out.leftAlone.length} other record(s).` : ""
  }`;
}

/** The custom domains: each with its state, attach and detach. */
export function DomainsSection() {
  const [list, setList] = useState<Domains | null>(null);
  const [name, setName] = useState("");
  const load = useAction();
  const attach = useAction();
  const detach = useAction();
  const { reload } = useLoad("/api/admin/edge/domains", setList, load, edgeMessage);

  const add = async () => {
    const domain = name.trim();
    const out = await attach.run(() =>
      edgeCall(() => api("PUT", "/api/admin/edge/domains", { domain }))
    );
    if (out) {
      setName("");
      attach.setStatus({ kind: "ok", text: attachedText(out.attached) });
      await reload();
    }
  };
  const remove = (domain: string) =>
    confirmedRun(
      detach,
      `Detach ${domain}? Its CNAME record to ${list?.hostname} is deleted and visitors using ` +
        "that address no longer reach the waiting room.",
      "Detach",
      () => edgeCall(() => api("DELETE", "/api/admin/edge/domains", { domain })),
      undefined,
      async (out) => {
        detach.setStatus({ kind: "ok", text: detachedText(out) });
        await reload();
      },
    );

  return (
    <Section title="Custom domains" id="edge-domains">
      <p class="muted">
        Extra names in {list?.zoneName ?? "the zone"} that lead to{" "}
        {list?.hostname ?? "the hostname"}.
      </p>
      <Status s={load.status} />
      <RemoveTable
        rows={list?.domains ?? null}
        empty="No custom domains."
        columns={["Domain", "State"]}
        rowKey={(d) => d.domain}
        cells={(d) => (
          <>
            <td>{d.domain}</td>
            <td class={d.ok ? "ok" : "bad"}>{d.message}</td>
          </>
        )}
        removeLabel="Detach"
        removeName={(d) => `Detach ${d.domain}`}
        busy={detach.busy}
        onRemove={(d) => remove(d.domain)}
      />
      <Status s={detach.status} />
      <ActionForm act={attach} submit="Attach domain" onSubmit={add}>
        <Input
          label="Domain to attach"
          name="domain"
          hint="A name in the zone, e.g. shop.example.com."
          required
          autocomplete="off"
          value={name}
          onValue={setName}
        />
      </ActionForm>
    </Section>
  );
}
