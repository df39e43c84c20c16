/// <reference lib="dom" />
/**
 * The Admission tab's visitor sessions card: fixed sessions (the slot is held until the access
 * token expires) or sliding ones (the slot is freed once the visitor has been idle a while, with
 * an optional hard cap), as `GET`/`PUT /api/admin/sessions` keep them.
 */
import { useEffect, useState } from "preact/hooks";
import { api } from "../api.ts";
import { ActionForm, Input, Radios } from "../forms.tsx";
import { num, Section, useAction } from "../ui.tsx";
import { checkedSave, editsOf } from "../stale.ts";

/** QueueSessions in openapi.yaml. */
interface QueueSessions {
  queue: string;
  sessionMode: "fixed" | "sliding";
  sessionIdleSeconds: number;
  sessionMaxSeconds: number | null;
  renewalIntervalSeconds: number;
}

const MODES = [
  ["fixed", "Fixed: each visitor keeps the slot for the access token's whole lifetime"],
  [
    "sliding",
    "Sliding (recommended): the slot is freed once the visitor has been idle for the time below",
  ],
] as const;

/** The card's fields as it names them. */
const SESSION_FIELDS = {
  mode: "How long an admitted visitor keeps a slot",
  idle: "Idle time",
  max: "Longest session",
};

/** Stored sessions as the form's values (the base a save compares with). */
const formOf = (s: QueueSessions) => ({
  mode: s.sessionMode,
  idle: String(s.sessionIdleSeconds),
  max: s.sessionMaxSeconds === null ? "" : String(s.sessionMaxSeconds),
});

export function SessionsCard({ queue }: { queue: string }) {
  const [now, setNow] = useState<QueueSessions | null>(null);
  const [mode, setMode] = useState<QueueSessions["sessionMode"]>("fixed");
  const [idle, setIdle] = useState("");
  const [max, setMax] = useState("");
  const a = useAction();
  const path = `/api/admin/sessions?queue=${encodeURIComponent(queue)}`;
  const show = (s: QueueSessions) => {
    setNow(s);
    setMode(s.sessionMode);
    setIdle(String(s.sessionIdleSeconds));
    setMax(s.sessionMaxSeconds === null ? "" : String(s.sessionMaxSeconds));
  };
  useEffect(() => {
    api<QueueSessions>("GET", path).then(show).catch(() => {});
  }, [queue]);
  if (!now) return null;
  return (
    <Section title="Visitor sessions" id="adm-sessions">
      <ActionForm
        act={a}
        noValidate
        submit="Save sessions"
        onSubmit={() =>
          a.run(async () => {
            const v = await checkedSave(
              editsOf(SESSION_FIELDS, formOf(now), { mode, idle, max }),
              async () => formOf(await api<QueueSessions>("GET", path)),
            ) as Record<keyof typeof SESSION_FIELDS, string>;
            const out = await api<QueueSessions>("PUT", "/api/admin/sessions", {
              queue,
              sessionMode: v.mode,
              sessionIdleSeconds: Number(v.idle),
              sessionMaxSeconds: v.max.trim() ? Number(v.max) : null,
            });
            show(out);
            return out.sessionMode === "sliding"
              ? `Sliding sessions: a slot is freed ${out.sessionIdleSeconds} s after a visitor's last request.`
              : "Fixed sessions: a slot is held for the access token's lifetime.";
          })}
      >
        <Radios
          legend="How long an admitted visitor keeps a slot"
          class="adm-choices"
          name="adm-session-mode"
          options={MODES}
          value={mode}
          onChange={setMode}
        />
        <Input
          describe
          label="Idle time (seconds)"
          hint={`Sliding: 60 to ${
            num(3600)
          }. Renewed at most every ${now.renewalIntervalSeconds} s per visitor.`}
          type="number"
          inputMode="numeric"
          min="60"
          max="3600"
          step="1"
          value={idle}
          onValue={setIdle}
        />
        <Input
          describe
          label="Longest session (seconds, optional)"
          hint={`Sliding: a hard cap after admission, 60 to ${num(86400)}; empty: none.`}
          type="number"
          inputMode="numeric"
          min="60"
          max="86400"
          step="1"
          value={max}
          onValue={setMax}
        />
      </ActionForm>
    </Section>
  );
}
