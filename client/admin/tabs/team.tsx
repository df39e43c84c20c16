/// <reference lib="dom" />
/**
 * The Team tab: invites (the accept link shown once, pending ones revocable), the admins
 * (remove anyone but yourself) and the audit log, newest first in local time.
 */
import { useState } from "preact/hooks";
import type { PublicInvite } from "../../../lib/admin/invites.ts";
import type { PublicUser } from "../../../lib/admin/users.ts";
import { api } from "../api.ts";
import type { TabProps } from "../boot.ts";
import { confirmedRun, RemoveTable, useLoad } from "../forms.tsx";
import { localTime, OnceValue, Section, Status, useAction } from "../ui.tsx";
import { AuditSection } from "./team_audit.tsx";

type Invite = PublicInvite;
type User = PublicUser;

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
  // The link just created, shown once, with its invite's id (revoking it hides the link).
  const [fresh, setFresh] = useState<{ id: string; url: string } | null>(null);
  const make = useAction();
  const revoke = useAction();
  const { reload: load } = useLoad<{ invites: Invite[] }>(
    "/api/admin/invites",
    (r) => setInvites(r.invites),
    revoke,
  );
  const create = async () => {
    const r = await make.run(
      () => api<{ acceptUrl: string; invite: { id: string } }>("POST", "/api/admin/invites"),
      "Invite created. Copy the link now: it is shown only this once.",
    );
    if (r) {
      setFresh({ id: r.invite.id, url: absolute(r.acceptUrl) });
      load();
      onChange();
    }
  };
  const drop = (inv: Invite) =>
    confirmedRun(
      revoke,
      `Revoke the invite created ${localTime(inv.createdAt)}? Its link stops working.`,
      "Revoke",
      () => api("DELETE", `/api/admin/invites/${encodeURIComponent(inv.id)}`),
      "Invite revoked.",
      async () => {
        if (fresh?.id === inv.id) setFresh(null);
        await load();
        onChange();
      },
    );
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
      {fresh && <OnceValue value={fresh.url} label="Invite link" />}
      <h3>Pending invites</h3>
      <RemoveTable
        rows={invites}
        empty="No pending invites."
        columns={["Created", "By", "Expires"]}
        rowKey={(i) => i.id}
        cells={(i) => (
          <>
            <td>{localTime(i.createdAt)}</td>
            <td>{i.createdBy}</td>
            <td>{localTime(i.expiresAt)}</td>
          </>
        )}
        removeLabel="Revoke"
        removeName={(i) => `Revoke the invite created ${localTime(i.createdAt)}`}
        busy={revoke.busy}
        onRemove={drop}
      />
      <Status s={revoke.status} />
    </Section>
  );
}

function UsersSection({ me, onChange }: { me: string | undefined; onChange: () => void }) {
  const [users, setUsers] = useState<User[] | null>(null);
  const act = useAction();
  const { reload: load } = useLoad<{ users: User[] }>(
    "/api/admin/users",
    (r) => setUsers(r.users),
    act,
  );
  const remove = (u: User) =>
    confirmedRun(
      act,
      `Remove ${u.username}? Their sessions end and the invites they created are deleted.`,
      "Remove",
      () => api("DELETE", `/api/admin/users/${encodeURIComponent(u.id)}`),
      `${u.username} removed.`,
      async () => {
        await load();
        onChange();
      },
    );
  return (
    <Section title="Admins" id="users">
      <RemoveTable
        rows={users}
        columns={["Username", "Since"]}
        rowKey={(u) => u.id}
        cells={(u) => (
          <>
            <td>
              {u.username}
              {u.id === me && <span class="muted">(you)</span>}
            </td>
            <td>{localTime(u.createdAt)}</td>
          </>
        )}
        removeLabel="Remove"
        removeName={(u) => `Remove ${u.username}`}
        canRemove={(u) => u.id !== me}
        busy={act.busy}
        onRemove={remove}
      />
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
