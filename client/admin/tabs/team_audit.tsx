/// <reference lib="dom" />
/** The audit log of the Team tab: recent admin activity, newest first, in local time. */
import { useEffect, useState } from "preact/hooks";
import type { AuditEntry } from "../../../lib/admin/audit.ts";
import { api } from "../api.ts";
import { AUDIT_WORDS } from "./audit_words.ts";
import { localTime, Section, Status, useAction } from "../ui.tsx";

type Entry = AuditEntry;

/** `key: value` pairs of an entry's detail, short. */
function details(d: Record<string, unknown>): string {
  return Object.entries(d).map(([k, v]) => {
    const s = v !== null && typeof v === "object" ? JSON.stringify(v) : String(v);
    return `${k}: ${s.length > 80 ? s.slice(0, 79) + "…" : s}`;
  }).join(", ");
}

export function AuditSection({ gen }: { gen: number }) {
  const [entries, setEntries] = useState<Entry[] | null>(null);
  const act = useAction();
  const load = () =>
    act.run(async () => {
      const r = await api<{ entries: Entry[] }>("GET", "/api/admin/audit?limit=100");
      setEntries([...r.entries].sort((a, b) => b.at - a.at));
      return "";
    });
  useEffect(() => {
    load();
  }, [gen]);
  return (
    <Section title="Audit log" id="audit">
      <div class="actions">
        <button type="button" disabled={act.busy} onClick={load}>Refresh</button>
      </div>
      <Status s={act.status?.kind === "error" ? act.status : null} />
      {entries && entries.length === 0 && <p>No activity yet.</p>}
      {entries && entries.length > 0 && (
        <div class="table-wrap">
          <table class="audit">
            <caption class="sr-only">Recent admin activity, newest first</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">What</th>
                <th scope="col">Details</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => (
                <tr key={e.id}>
                  <td>{localTime(e.at)}</td>
                  <td>{e.actor}</td>
                  <td>
                    {AUDIT_WORDS[e.action] ?? e.action}
                    {AUDIT_WORDS[e.action] && <small class="muted">{e.action}</small>}
                  </td>
                  <td>
                    <small>{details(e.detail)}</small>
                    {e.ip && <small class="muted">from {e.ip}</small>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}
