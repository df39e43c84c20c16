/// <reference lib="dom" />
/**
 * The priority codes of the picked queue, inside its Priority lanes panel: issue codes for a lane
 * (how many, uses per code, an optional expiry, a label), shown this once (admission_codes_once
 * .tsx: the service keeps only a hash of each), and every code listed by its label, lane, uses,
 * expiry and state, never by its text, each revocable after a confirmation.
 */
import { useState } from "preact/hooks";
import type { PriorityCodeRecord } from "../../../lib/priority/codes.ts";
import { api } from "../api.ts";
import { ActionForm, confirmedRun, Input, RemoveTable } from "../forms.tsx";
import { Field, localTime, POLL_MS, Status, useAction, usePolling } from "../ui.tsx";
import { fromLocalInput, zoneName } from "./admission_time.ts";
import { codeLink, IssuedFor, keepIssued } from "./admission_codes_once.tsx";

/** PriorityCode in openapi.yaml. */
export type CodeRecord = PriorityCodeRecord;

/** Most codes one issue makes (MAX_CODES_PER_ISSUE in lib/priority/codes.ts). */
const MAX_CODES = 1000;

/** A code's state in words: revoked, used up, expired or active. */
export function codeState(c: CodeRecord, now = Date.now()): string {
  if (c.revokedAt !== null) return "revoked";
  if (c.uses >= c.maxUses) return "used up";
  if (c.expiresAt !== null && c.expiresAt <= now) return "expired";
  return "active";
}

/** Issue codes for a lane, see them once, list and revoke them. */
export function PriorityCodes({ queue, lanes }: { queue: string; lanes: { name: string }[] }) {
  const [codes, setCodes] = useState<CodeRecord[] | null>(null);
  const [f, setF] = useState({ lane: "", count: "1", maxUses: "1", expires: "", label: "" });
  const path = `/api/admin/priority-codes?queue=${encodeURIComponent(queue)}`;
  const load = () => api<{ codes: CodeRecord[] }>("GET", path).then((r) => setCodes(r.codes));
  usePolling(() => void load().catch(() => {}), POLL_MS, [queue]);
  const a = useAction();
  const list = useAction();
  const edit = (k: keyof typeof f) => (v: string) => setF({ ...f, [k]: v });
  // The lane picked, or the first when none was (or the one picked is gone).
  const lane = lanes.some((l) => l.name === f.lane) ? f.lane : lanes[0]?.name ?? "";
  const issue = () => {
    const count = Number(f.count);
    if (!Number.isInteger(count) || count < 1 || count > MAX_CODES) {
      a.setStatus({
        kind: "error",
        text: "Check how many codes to issue.",
        fields: [{ path: "count", message: `Enter a whole number from 1 to ${MAX_CODES}` }],
      });
      return;
    }
    a.run(async () => {
      const out = await api<{ codes: string[]; records: CodeRecord[] }>(
        "POST",
        "/api/admin/priority-codes",
        {
          queue,
          lane,
          count,
          maxUses: Number(f.maxUses),
          expiresAt: f.expires ? fromLocalInput(f.expires) : null,
          label: f.label.trim(),
        },
      );
      keepIssued({ queue, codes: out.codes, records: out.records });
      setF({ ...f, label: "" });
      await load().catch(() => {});
      const n = out.codes.length;
      return `Issued ${n} ${n === 1 ? "code" : "codes"} for the lane ${lane}.`;
    });
  };
  const revoke = (c: CodeRecord) =>
    confirmedRun(
      list,
      `Revoke the code "${
        c.label || "without a label"
      }" (lane ${c.lane}, used ${c.uses} of ${c.maxUses})? Nobody can use it after this; places already taken with it are kept.`,
      "Revoke code",
      () =>
        api<CodeRecord>(
          "DELETE",
          `/api/admin/priority-codes/${encodeURIComponent(c.id)}?queue=${
            encodeURIComponent(queue)
          }`,
        ),
      "Revoked.",
      () => load().catch(() => {}),
    );
  return (
    <div class="priority-codes">
      <h3>Priority codes</h3>
      <p class="muted">
        A code puts one visitor in a lane. Send the link <code>{codeLink(queue, "CODE")}</code>{" "}
        with the code in it, or let visitors type the code on the waiting page ("Have a priority
        code?"). Each use takes one place in the code's lane; a visitor already waiting moves to the
        back of that lane.
      </p>
      <p class="muted">
        Your own site can also send signed-in members straight into a lane, without a code: add a
        {" "}
        <code>lane</code>{" "}
        claim (the lane's name) to the enqueue token it signs with ENQUEUE_SECRET. See "Priority
        lanes" in docs/rooms.md.
      </p>
      <IssuedFor queue={queue} />
      {lanes.length === 0
        ? <p>Save a lane first to issue codes for it.</p>
        : (
          <ActionForm act={a} submit="Issue codes" onSubmit={issue} class="codes-issue">
            <Field label="Lane" name="lane">
              {(id, errId) => (
                <select
                  id={id}
                  aria-invalid={errId ? true : undefined}
                  aria-describedby={errId}
                  value={lane}
                  onChange={(e) => edit("lane")(e.currentTarget.value)}
                >
                  {lanes.map((l) => <option key={l.name} value={l.name}>{l.name}</option>)}
                </select>
              )}
            </Field>
            <Input
              label="How many codes"
              name="count"
              hint={`1 to ${MAX_CODES}`}
              type="number"
              inputMode="numeric"
              min="1"
              max={MAX_CODES}
              step="1"
              value={f.count}
              onValue={edit("count")}
            />
            <Input
              label="Uses per code"
              name="maxUses"
              hint="1: single-use. More: one code for a group or a mailing."
              type="number"
              inputMode="numeric"
              min="1"
              max="1000000"
              step="1"
              value={f.maxUses}
              onValue={edit("maxUses")}
            />
            <Input
              label={`Expires (optional, your time zone: ${zoneName()})`}
              name="expiresAt"
              hint="Leave it empty for codes that do not expire."
              type="datetime-local"
              value={f.expires}
              onValue={edit("expires")}
            />
            <Input
              label="Label"
              name="label"
              hint="For your list; visitors never see it. To be able to revoke one person's code alone, issue it on its own with their name."
              maxLength={100}
              value={f.label}
              onValue={edit("label")}
            />
          </ActionForm>
        )}
      <h3>Codes issued</h3>
      <RemoveTable
        rows={codes}
        empty="No codes issued yet."
        columns={["Label", "Lane", "Uses", "Expires", "State", "Issued"]}
        rowKey={(c) => c.id}
        cells={(c) => (
          <>
            <td>{c.label || <span class="muted">no label</span>}</td>
            <td>{c.lane}</td>
            <td>{`${c.uses} of ${c.maxUses}`}</td>
            <td>{c.expiresAt === null ? "never" : localTime(c.expiresAt)}</td>
            <td>{codeState(c)}</td>
            <td>{localTime(c.createdAt)}</td>
          </>
        )}
        removeLabel="Revoke"
        removeName={(c) =>
          `Revoke the code ${c.label || "without a label"} (${c.lane}, #${c.id.slice(-6)})`}
        canRemove={(c) => c.revokedAt === null}
        busy={list.busy}
        onRemove={revoke}
      />
      <Status s={list.status} />
    </div>
  );
}
