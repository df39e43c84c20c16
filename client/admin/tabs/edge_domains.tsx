/// <reference lib="dom" />
/**
 * Custom domains of the Edge tab: each tracked domain with its state in Cloudflare, attach (a
 * proxied CNAME to the hostname) and detach (asks first).
 */
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.ts";
import { confirmAction, Field, Section, Status, useAction } from "../ui.tsx";
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

export function DomainsSection() {
  const [list, setList] = useState<Domains | null>(null);
  const [name, setName] = useState("");
  const load = useAction();
  const attach = useAction();
  const detach = useAction();
  const reload = () =>
    api<Domains>("GET", "/api/admin/edge/domains").then(setList).catch((e) =>
      load.setStatus({ kind: "error", text: edgeMessage(e) })
    );
  useEffect(() => {
    reload();
  }, []);

  const add = async () => {
    const domain = name.trim();
    const out = await attach.run(() =>
      edgeCall(() => api("PUT", "/api/admin/edge/domains", { domain }))
    );
    if (out) {
      setName("");
      attach.setStatus({
        kind: "ok",
        text: `Attached ${out.attached.domain}${
          out.attached.created ? " (CNAME created)" : out.attached.changed ? " (record fixed)" : ""
        }.`,
      });
      await reload();
    }
  };
  const remove = async (domain: string) => {
    if (
      !await confirmAction(
        `Detach ${domain}? Its CNAME record to ${list?.hostname} is deleted and visitors using ` +
          "that address no longer reach the waiting room.",
        "Detach",
      )
    ) return;
    const out = await detach.run(() =>
      edgeCall(() => api("DELETE", "/api/admin/edge/domains", { domain }))
    );
    if (out) {
      detach.setStatus({
        kind: "ok",
        text: `Detached ${out.domain}${out.deleted ? " (CNAME deleted)" : ""}.${
          out.leftAlone?.length ? ` Left alone: ${out.leftAlone.length} other record(s).` : ""
        }`,
      });
      await reload();
    }
  };

  return (
    <Section title="Custom domains" id="edge-domains">
      <p class="muted">
        Extra names in {list?.zoneName ?? "the zone"} that lead to{" "}
        {list?.hostname ?? "the hostname"}.
      </p>
      <Status s={load.status} />
      {list && list.domains.length === 0 && <p>No custom domains.</p>}
      {list && list.domains.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Domain</th>
                <th scope="col">State</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.domains.map((d) => (
                <tr key={d.domain}>
                  <td>{d.domain}</td>
                  <td class={d.ok ? "ok" : "bad"}>{d.message}</td>
                  <td>
                    <button
                      type="button"
                      class="danger"
                      disabled={detach.busy}
                      aria-label={`Detach ${d.domain}`}
                      onClick={() => remove(d.domain)}
                    >
                      Detach
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Status s={detach.status} />
      <form
        onSubmit={(e) => {
          e.preventDefault();
          add();
        }}
      >
        <Field label="Domain to attach" hint="A name in the zone, e.g. shop.example.com.">
          {(id) => (
            <input
              id={id}
              value={name}
              required
              autoComplete="off"
              onInput={(e) => setName((e.target as HTMLInputElement).value)}
            />
          )}
        </Field>
        <div class="actions">
          <button type="submit" disabled={attach.busy}>Attach domain</button>
        </div>
        <Status s={attach.status} />
      </form>
    </Section>
  );
}
