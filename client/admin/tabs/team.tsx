/// <reference lib="dom" />
/**
 * The Team tab: invites (the accept link shown once, pending ones revocable), the admins
 * (remove anyone but yourself) and the audit log, newest first in local time.
 */
import { useEffect, useState } from "preact/hooks";
import { api, messageOf } from "../api.ts";
import type { TabProps } from "../boot.ts";
import { confirmAction, localTime, OnceValue, Section, Status, useAction } from "../ui.tsx";
import { AuditSection } from "./team_audit.tsx";

interface Invite {
  id: string;
  createdAt: number;
  expiresAt: number;
  createdBy: string;
}

interface User {
  id: string;
  username: string;
  createdAt: number;
}

/** The accept URL as an absolute link (the API may answer with a path). */
function absolute(url: string): string {
  try {
    return new URL(url, location.origin).href;
  } catch {
    return url;
  }
}

function InvitesSection({ onChange }: { onChange: () => void }) {
  const [invites, setInvites] = useState<Invite[] | null>(null);
  const [fresh, setFresh] = useState<string | null>(null);
  const make = useAction();
  const revoke = useAction();
  const load = () =>
    api<{ invites: Invite[] }>("GET", "/api/admin/invites").then((r) => setInvites(r.invites))
      .catch((e) => revoke.setStatus({ kind: "error", text: messageOf(e) }));
  useEffect(() => {
    load();
  }, []);
  const create = async () => {
    const r = await make.run(
      () => api<{ acceptUrl: string }>("POST", "/api/admin/invites"),
      "Invite created. Copy the link now: it is shown only this once.",
    );
    if (r) {
      setFresh(absolute(r.acceptUrl));
      load();
      onChange();
    }
  };
  const drop = async (inv: Invite) => {
    const ok = await confirmAction(
      `Revoke the invite created ${localTime(inv.createdAt)}? Its link stops working.`,
      "Revoke",
    );
    if (!ok) return;
    const r = await revoke.run(
      () => api("DELETE", `/api/admin/invites/${encodeURIComponent(inv.id)}`),
      "Invite revoked.",
    );
    if (r) {
      load();
      onChange();
    }
  };
  return (
    <Section title="Invites" id="invites">
      <p class="muted">
        An invite link lets one person create an admin account within 72 hours.
      </p>
      <div class="actions">
        <button type="button" class="primary" disabled={make.busy} onClick={create}>
          Create invite link
        </button>
      </div>
      <Status s={make.status} />
      {fresh && <OnceValue value={fresh} label="Invite link" />}
      <h3>Pending invites</h3>
      {invites && invites.length === 0 && <p>No pending invites.</p>}
      {invites && invites.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">By</th>
                <th scope="col">Expires</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {invites.map((i) => (
                <tr key={i.id}>
                  <td>{localTime(i.createdAt)}</td>
                  <td>{i.createdBy}</td>
                  <td>{localTime(i.expiresAt)}</td>
                  <td>
                    <button
                      type="button"
                      class="danger"
                      disabled={revoke.busy}
                      aria-label={`Revoke the invite created ${localTime(i.createdAt)}`}
                      onClick={() => drop(i)}
                    >
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Status s={revoke.status} />
    </Section>
  );
}

function UsersSection({ me, onChange }: { me: string | undefined; onChange: () => void }) {
  const [users, setUsers] = useState<User[] | null>(null);
  const act = useAction();
  const load = () =>
    api<{ users: User[] }>("GET", "/api/admin/users").then((r) => setUsers(r.users))
      .catch((e) => act.setStatus({ kind: "error", text: messageOf(e) }));
  useEffect(() => {
    load();
  }, []);
  const remove = async (u: User) => {
    const ok = await confirmAction(
      `Remove ${u.username}? Their sessions end and the invites they created are deleted.`,
      "Remove",
    );
    if (!ok) return;
    const r = await act.run(
      () => api("DELETE", `/api/admin/users/${encodeURIComponent(u.id)}`),
      `${u.username} removed.`,
    );
    if (r) {
      load();
      onChange();
    }
  };
  return (
    <Section title="Admins" id="users">
      {users && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Username</th>
                <th scope="col">Since</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {users.map((u) => (
                <tr key={u.id}>
                  <td>
                    {u.username}
                    {u.id === me && <span class="muted">(you)</span>}
                  </td>
                  <td>{localTime(u.createdAt)}</td>
                  <td>
                    {u.id !== me && (
                      <button
                        type="button"
                        class="danger"
                        disabled={act.busy}
                        aria-label={`Remove ${u.username}`}
                        onClick={() => remove(u)}
                      >
                        Remove
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Status s={act.status} />
    </Section>
  );
}

export function TeamTab({ boot }: TabProps) {
  const [gen, setGen] = useState(0);
  const changed = () => setGen((g) => g + 1);
  return (
    <div class="tab-team">
      <InvitesSection onChange={changed} />
      <UsersSection me={boot.me?.id} onChange={changed} />
      <AuditSection gen={gen} />
    </div>
  );
}
