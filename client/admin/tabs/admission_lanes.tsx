/// <reference lib="dom" />
/**
 * The Admission tab's priority lanes of the picked queue: the lanes listed and edited (a name, and
 * a share of each second's admissions in percent or strict priority), saved together with one PUT,
 * and below them the lane's priority codes (admission_codes.tsx). Lanes being edited are kept as
 * typed until they are saved or discarded: a refused save (each bad field named beside it) and the
 * tab's refreshes leave them as they are.
 */
import { useState } from "preact/hooks";
import { type Lane, MAX_LANES } from "../../../lib/priority/lanes.ts";
import { api } from "../api.ts";
import { ActionForm, Input } from "../forms.tsx";
import {
  confirmAction,
  Field,
  localTime,
  POLL_MS,
  Section,
  useAction,
  usePolling,
} from "../ui.tsx";
import { PriorityCodes } from "./admission_codes.tsx";
import { checkedSave } from "../stale.ts";

/** PriorityLanes in openapi.yaml. */
interface LanesView {
  queue: string;
  lanes: Lane[];
  updatedAt: number;
}

/** A lane as the form edits it: its share in percent, as typed. */
interface Row {
  key: string;
  name: string;
  strict: boolean;
  percent: string;
}

const percentOf = (share?: number) =>
  share === undefined ? "" : String(Math.round(share * 10_000) / 100);

/** The stored lanes as rows (keyed by place, so a refresh keeps what has focus). */
const rowsOf = (lanes: Lane[]): Row[] =>
  lanes.map((l, i) => ({
    key: `s${i}`,
    name: l.name,
    strict: l.strict === true,
    percent: percentOf(l.share),
  }));

/** The lanes the rows ask for, as the API takes them (an empty share is left out: refused). */
function lanesOf(rows: Row[]): Lane[] {
  return rows.map((r) => {
    const name = r.name.trim();
    if (r.strict) return { name, strict: true };
    const p = r.percent.trim();
    return p === "" ? { name } : { name, share: Number(p) / 100 };
  });
}

let added = 0;

/** The priority lanes panel: lanes, then the codes that put visitors in them. */
export function PriorityLanesCard({ queue }: { queue: string }) {
  const [view, setView] = useState<LanesView | null>(null);
  const [draft, setDraft] = useState<Row[] | null>(null);
  // The lanes as stored when the operator began editing (checkedSave's base).
  const [base, setBase] = useState<unknown>(null);
  const path = `/api/admin/lanes?queue=${encodeURIComponent(queue)}`;
  usePolling(() => void api<LanesView>("GET", path).then(setView).catch(() => {}), POLL_MS, [
    queue,
  ]);
  const a = useAction();
  const rows = draft ?? rowsOf(view?.lanes ?? []);
  const begin = () => draft === null && setBase(lanesOf(rows));
  const edit = (i: number, change: Partial<Row>) => {
    begin();
    setDraft(rows.map((r, j) => j === i ? { ...r, ...change } : r));
  };
  // A row added or removed renumbers the fields: a refusal's names would point at the wrong ones.
  const reshape = (next: Row[] | null) => {
    a.setStatus(null);
    begin();
    setDraft(next);
  };
  const save = async () => {
    const sent = rows;
    const lanes = lanesOf(sent);
    const gone = (view?.lanes ?? []).filter((l) => !lanes.some((n) => n.name === l.name));
    if (
      gone.length &&
      !(await confirmAction(
        `Remove ${gone.map((l) => `"${l.name}"`).join(", ")}? Visitors waiting in ${
          gone.length === 1 ? "it" : "them"
        } are still let in, after the other lanes; new codes and tokens naming ${
          gone.length === 1 ? "it" : "them"
        } put visitors in the main line.`,
        gone.length === 1 ? "Remove lane" : "Remove lanes",
      ))
    ) return;
    a.run(async () => {
      const v = await checkedSave(
        { lanes: ["Priority lanes", base ?? lanes, lanes] },
        async () => ({ lanes: lanesOf(rowsOf((await api<LanesView>("GET", path)).lanes)) }),
      );
      const out = await api<LanesView>("PUT", "/api/admin/lanes", { queue, lanes: v.lanes });
      setView(out);
      // What was typed while the save ran stays.
      setDraft((d) => d === sent ? null : d);
      const n = out.lanes.length;
      return n ? `Saved: ${n} ${n === 1 ? "lane" : "lanes"}.` : "Saved: no lanes.";
    });
  };
  return (
    <Section title="Priority lanes" id="adm-lanes">
      <p class="muted">
        A priority lane is a line of its own beside the main line, for members, staff or invited
        guests. Each second's admissions are split: a strict lane's visitors go in before everyone
        else; a lane with a share gets that part of each second (30% of 10 a second is 3), and the
        main line the rest. What a lane cannot use goes to the others. Within a lane it is first
        come, first served.
      </p>
      <ActionForm
        act={a}
        submit="Save lanes"
        onSubmit={save}
        loading={!view}
        disabled={draft === null}
        buttons={
          <>
            <button
              type="button"
              disabled={a.busy || rows.length >= MAX_LANES}
              onClick={() =>
                reshape([...rows, { key: `n${++added}`, name: "", strict: false, percent: "" }])}
            >
              Add a lane
            </button>
            {draft !== null && (
              <button
                type="button"
                disabled={a.busy}
                onClick={() => reshape(null)}
              >
                Discard changes
              </button>
            )}
          </>
        }
        after={view && (
          <p class="muted">
            {draft !== null ? "Unsaved changes. " : ""}Last saved:{" "}
            {localTime(view.updatedAt || null)}.
          </p>
        )}
      >
        {rows.length === 0 && <p>No lanes: everyone waits in the one line.</p>}
        {rows.map((r, i) => (
          <LaneRow
            key={r.key}
            row={r}
            i={i}
            busy={a.busy}
            onEdit={(change) => edit(i, change)}
            onRemove={() => reshape(rows.filter((_, j) => j !== i))}
            onUp={i > 0
              ? () => reshape([...rows.slice(0, i - 1), r, rows[i - 1], ...rows.slice(i + 1)])
              : undefined}
          />
        ))}
      </ActionForm>
      <PriorityCodes queue={queue} lanes={view?.lanes ?? []} />
    </Section>
  );
}

/**
 * One lane's fields: its name, how it is let in, its share; its remove button, and a button to
 * move it up (strict lanes go in the order listed; what the main line leaves goes to shared lanes
 * in that order too).
 */
function LaneRow(
  p: {
    row: Row;
    i: number;
    busy: boolean;
    onEdit: (change: Partial<Row>) => void;
    onRemove: () => void;
    onUp?: () => void;
  },
) {
  const n = p.i + 1;
  return (
    <fieldset class="lane-row">
      <legend>Lane {n}{p.row.name ? `: ${p.row.name}` : ""}</legend>
      <Input
        label={`Lane ${n} name`}
        name={`lanes.${p.i}.name`}
        hint="Lowercase letters, digits, - and _ (shown to its visitors)"
        maxLength={32}
        spellcheck={false}
        value={p.row.name}
        onValue={(name) => p.onEdit({ name })}
      />
      <Field label={`Lane ${n} goes in`} name={`lanes.${p.i}.strict`}>
        {(id, errId) => (
          <select
            id={id}
            aria-invalid={errId ? true : undefined}
            aria-describedby={errId}
            value={p.row.strict ? "strict" : "share"}
            onChange={(e) => p.onEdit({ strict: e.currentTarget.value === "strict" })}
          >
            <option value="share">With a share of each second</option>
            <option value="strict">Strict: before everyone else</option>
          </select>
        )}
      </Field>
      {!p.row.strict && (
        <Input
          label={`Lane ${n} share (%)`}
          name={`lanes.${p.i}.share`}
          hint="Percent of each second's admissions, e.g. 30"
          type="number"
          inputMode="decimal"
          step="any"
          value={p.row.percent}
          onValue={(percent) => p.onEdit({ percent })}
        />
      )}
      <div class="actions">
        {p.onUp && (
          <button
            type="button"
            disabled={p.busy}
            aria-label={`Move up lane ${n}${p.row.name ? ` (${p.row.name})` : ""}`}
            onClick={p.onUp}
          >
            Move up
          </button>
        )}
        <button
          type="button"
          class="danger"
          disabled={p.busy}
          aria-label={`Remove lane ${n}${p.row.name ? ` (${p.row.name})` : ""}`}
          onClick={p.onRemove}
        >
          Remove
        </button>
      </div>
    </fieldset>
  );
}
