/// <reference lib="dom" />
/**
 * The Live tab's queues card: every queue with its live counts (polled), a form to create one
 * (name, mode, rate, capacity), and a confirmed delete (asked again, with the count, when
 * visitors wait). The queue picker hears `tg-queues-changed` and re-reads the list.
 */
import { useEffect, useState } from "preact/hooks";
import { api, ApiError, messageOf } from "../api.ts";
import { ActionForm, Input, Radios } from "../forms.tsx";
import {
  confirmAction,
  localTime,
  POLL_MS,
  Section,
  Status,
  type StatusValue,
  useAction,
  usePolling,
} from "../ui.tsx";

/** One row of `GET /api/admin/queues`. */
interface QueueRow {
  queue: string;
  mode: "queue" | "lottery";
  paused: boolean;
  waiting: number;
  holding: number;
  entered: number;
  inConfig: boolean;
}

/** Tells the control room (its queue picker) that queues were created or deleted. */
export const queuesChanged = () => dispatchEvent(new Event("tg-queues-changed"));

const NAME_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** What a delete answers: when the name is free again, and what went with the queue. */
interface Deleted {
  reusableAt: number;
  inConfig: boolean;
  removedWaiting: number;
}

/** The deleted-queue report: when the name is free again, and whether QUEUES brings it back. */
function deletedText(row: QueueRow, out: Deleted): string {
  return `Queue ${row.queue} deleted${
    out.removedWaiting ? ` with ${out.removedWaiting} waiting visitor(s)` : ""
  }. Its name can be used again from ${localTime(out.reusableAt)}, when its last access ` +
    "token has expired." +
    (out.inConfig
      ? ` ${row.queue} is listed in QUEUES, so it comes back at the next start after ` +
        "that: remove it from QUEUES to keep it away."
      : "");
}

/**
 * Deletes a queue after a confirmation; when visitors wait, asks again with their count before
 * forcing. Undefined when the admin backed out or the call failed (its status says which).
 */
async function deleteQueue(
  row: QueueRow,
  del: ReturnType<typeof useAction>,
): Promise<Deleted | undefined> {
  // One dialog that says who waits (the list's count, refreshed every few seconds); only when
  // people joined since it was read does the service's 409 ask again, with its own count.
  const who = row.waiting > 0
    ? ` ${row.waiting} ${row.waiting === 1 ? "visitor waits" : "visitors wait"} in it: ` +
      `they are removed from the line.`
    : " Nobody waits in it.";
  if (
    !await confirmAction(
      `Delete the queue ${row.queue}?${who} Its settings, branding overrides and statistics go.`,
      row.waiting > 0 ? "Delete with its visitors" : "Delete queue",
    )
  ) return;
  const call = (force: boolean) =>
    api<Deleted>(
      "DELETE",
      `/api/admin/queues/${encodeURIComponent(row.queue)}${force ? "?force=1" : ""}`,
    );
  try {
    del.setStatus({ kind: "busy", text: "Deleting…" });
    return await call(row.waiting > 0);
  } catch (e) {
    const waiting = e instanceof ApiError && e.details.reason === "visitors_waiting"
      ? Number(e.details.waiting)
      : null;
    if (waiting === null) return void del.setStatus({ kind: "error", text: messageOf(e) });
    del.setStatus(null);
    const sure = await confirmAction(
      `${waiting} ${waiting === 1 ? "visitor has" : "visitors have"} joined ${row.queue} since ` +
        "the list was read. Deleting it removes them from the line.",
      "Delete with its visitors",
    );
    if (!sure) return;
    return await del.run(() => call(true));
  }
}

/** The queues with their live counts and a delete button each (not for the last queue). */
function QueueTable(p: { rows: QueueRow[]; busy: boolean; onDelete: (r: QueueRow) => void }) {
  const { rows } = p;
  return (
    // Focusable and named: a keyboard user can scroll it sideways on a phone (WCAG 2.1.1).
    <div class="queues-scroll" tabIndex={0} role="region" aria-label="Queues">
      <table class="list queues-list">
        <thead>
          <tr>
            <th scope="col">Queue</th>
            <th scope="col">Mode</th>
            <th scope="col">Waiting</th>
            <th scope="col">In or holding</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.queue}>
              <th scope="row">
                {r.queue}
                {r.paused && <span class="muted">(paused)</span>}
              </th>
              <td>{r.mode === "lottery" ? "Lottery" : "Queue"}</td>
              <td>{r.waiting.toLocaleString()}</td>
              <td>{(r.entered + r.holding).toLocaleString()}</td>
              <td>
                <button
                  type="button"
                  class="danger"
                  disabled={rows.length <= 1 || p.busy}
                  title={rows.length <= 1 ? "The last queue cannot be deleted" : undefined}
                  onClick={() => p.onDelete(r)}
                >
                  Delete {r.queue}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The create form: name, mode, and optional rate and capacity (empty: the service default). */
function CreateQueueForm(p: { onCreated: () => Promise<unknown> }) {
  const [name, setName] = useState("");
  const [mode, setMode] = useState<"queue" | "lottery">("queue");
  const [rate, setRate] = useState("");
  const [capacity, setCapacity] = useState("");
  // Sliding sessions serve more visitors at the same capacity: suggested for every new queue.
  const [sessions, setSessions] = useState<"fixed" | "sliding">("sliding");
  const create = useAction();
  return (
    <>
      <h3>Create a queue</h3>
      <ActionForm
        act={create}
        submit="Create queue"
        onSubmit={async () => {
          const q = name.trim();
          if (!NAME_RE.test(q)) {
            // Worded as the server's refusal would be, by the field.
            return create.setStatus({
              kind: "error",
              text: "",
              fields: [{
                path: "name",
                message: "",
                rule: { code: q ? "invalid_format" : "too_small", origin: "string", minimum: 1 },
              }],
            });
          }
          const body: Record<string, unknown> = { name: q, mode };
          if (rate.trim()) body.admitPerSecond = Number(rate);
          if (capacity.trim()) body.capacity = Number(capacity);
          const out = await create.run(
            async () => {
              const made = await api("POST", "/api/admin/queues", body);
              if (sessions === "sliding") {
                await api("PUT", "/api/admin/sessions", { queue: q, sessionMode: "sliding" });
              }
              return made;
            },
            `Queue ${q} created. Pick it in the Queue menu above to manage it.`,
          );
          if (out) {
            setName("");
            queuesChanged();
            await p.onCreated();
          }
        }}
      >
        <Input
          label="Name"
          name="name"
          hint="e.g. presale: lowercase letters, digits, - and _, starting with a letter or digit, at most 64 characters"
          required
          maxLength={64}
          autocomplete="off"
          value={name}
          onValue={setName}
        />
        <Radios
          legend="Mode"
          name="new-queue-mode"
          options={[["queue", "Queue (first come, first served)"], ["lottery", "Lottery"]]}
          value={mode}
          onChange={setMode}
        />
        <Radios
          legend="Visitor sessions"
          name="new-queue-sessions"
          options={[
            ["sliding", "Sliding (suggested): a slot is freed once its visitor is idle"],
            ["fixed", "Fixed: a slot is held for the access token's whole lifetime"],
          ]}
          value={sessions}
          onChange={setSessions}
        />
        <Input
          label="Admit per second (optional)"
          name="admitPerSecond"
          type="number"
          min={0.1}
          max={100000}
          step="any"
          hint="empty: the service default"
          value={rate}
          onValue={setRate}
        />
        <Input
          label="Capacity (optional)"
          name="capacity"
          type="number"
          min={1}
          max={10000000}
          step={1}
          hint="visitors in or holding at once; empty: the service default"
          value={capacity}
          onValue={setCapacity}
        />
      </ActionForm>
    </>
  );
}

/** The last delete's outcome, for a card the delete re-mounted (the picked queue went). */
let lastDeleted: { status: StatusValue; at: number } | null = null;

/** The Live tab's queues card: the list (polled), deleted names, and the create form. */
export function QueuesCard() {
  const [rows, setRows] = useState<QueueRow[] | null>(null);
  const [deleted, setDeleted] = useState<{ queue: string; reusableAt: number }[]>([]);
  const [err, setErr] = useState<string | null>(null);
  const del = useAction();

  const load = () =>
    api<{ queues: QueueRow[]; deleted: { queue: string; reusableAt: number }[] }>(
      "GET",
      "/api/admin/queues",
    ).then((r) => {
      setRows(r.queues);
      setDeleted(r.deleted);
      setErr(null);
    }).catch((e) => setErr(messageOf(e)));
  usePolling(load, POLL_MS, []);

  useEffect(() => {
    // The tab re-opened on another queue because the picked one was deleted: say it was.
    if (lastDeleted && Date.now() - lastDeleted.at < 10_000) del.setStatus(lastDeleted.status);
    lastDeleted = null;
  }, []);

  const remove = async (row: QueueRow) => {
    const out = await deleteQueue(row, del);
    if (!out) return;
    const status = { kind: "ok" as const, text: deletedText(row, out) };
    lastDeleted = { status, at: Date.now() };
    del.setStatus(status);
    queuesChanged();
    await load();
  };

  return (
    <Section title="Queues" id="live-queues">
      {err && <p class="status error" role="alert">Could not refresh: {err}</p>}
      {!rows && !err && <p class="muted">Loading…</p>}
      {rows && <QueueTable rows={rows} busy={del.busy} onDelete={remove} />}
      <Status s={del.status} />
      {deleted.length > 0 && (
        <p class="muted">
          Deleted, name free again later:{" "}
          {deleted.map((d) => `${d.queue} (from ${localTime(d.reusableAt)})`).join(", ")}
        </p>
      )}
      <CreateQueueForm onCreated={load} />
    </Section>
  );
}
