/// <reference lib="dom" />
/**
 * The Admission tab's room switch: normal, everyone waits (queue_all), nobody waits
 * (passthrough), closed (reject, with the operator's text and retry time) or the automatic
 * Safety Net (its thresholds, and whether it is queueing now). Refreshed with the tab, so a
 * switch made elsewhere (another operator, the API, the Safety Net itself) shows.
 */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { ActionForm, Input, Radios } from "../forms.tsx";
import {
  confirmAction,
  Field,
  localTime,
  POLL_MS,
  Section,
  useAction,
  usePolling,
} from "../ui.tsx";
import { checkedSave, editsOf } from "../stale.ts";

type Mode = "normal" | "queue_all" | "passthrough" | "reject" | "auto";
interface Thresholds {
  joinsPerMinuteHigh: number | null;
  joinsPerMinuteLow: number | null;
  holdingHigh: number | null;
  holdingLow: number | null;
  calmMinutes: number;
}
/** RoomSwitch in openapi.yaml. */
interface RoomSwitch {
  queue: string;
  mode: Mode;
  effectiveMode: Exclude<Mode, "auto">;
  closedMessage: string;
  retryAfterSeconds: number;
  safetyNet: Thresholds | null;
  safetyNetState: {
    queueing: boolean;
    since: number;
    calmSince: number | null;
    last: { joinsPerMinute: number; holding: number } | null;
  } | null;
  updatedAt: number;
}

const WORDS: Record<Mode, string> = {
  normal: "Normal: admit at the rate and capacity you set",
  queue_all: "Everyone waits: even with free capacity, every visitor goes through the line",
  passthrough: "Nobody waits: everyone goes straight in (admissions are still counted)",
  reject: "Closed: visitors see your message; API clients get 503 with Retry-After",
  auto: "Safety Net: nobody waits until traffic crosses your threshold, then the line runs",
};

/** The Safety Net's fields: form key, label, bounds. */
const THRESHOLD_FIELDS: [string, string, string, string | undefined][] = [
  ["jHigh", "Joins per minute: start at", "0", undefined],
  ["jLow", "Joins per minute: stop below", "0", undefined],
  ["hHigh", "Holding: start at", "0", undefined],
  ["hLow", "Holding: stop below", "0", undefined],
  ["calm", "Calm minutes", "1", "1440"],
];

/** The form's fields as the operator reads them (named when another tab saved one meanwhile). */
const LABELS = {
  mode: "What visitors meet",
  closedMessage: "Message on the closed page",
  retryAfterSeconds: "Ask to come back after",
  ...Object.fromEntries(THRESHOLD_FIELDS.map(([k, label]) => [k, `Safety Net: ${label}`])),
};

/** A stored switch as the form's strings. */
const formOf = (room: RoomSwitch): Record<string, string> => ({
  mode: room.mode,
  closedMessage: room.closedMessage,
  retryAfterSeconds: String(room.retryAfterSeconds),
  jHigh: str(room.safetyNet?.joinsPerMinuteHigh),
  jLow: str(room.safetyNet?.joinsPerMinuteLow),
  hHigh: str(room.safetyNet?.holdingHigh),
  hLow: str(room.safetyNet?.holdingLow),
  calm: str(room.safetyNet?.calmMinutes ?? 5),
});

/** The question before a switch that turns every visitor away or lets everyone in unchecked. */
const ASK: Partial<Record<Mode, [string, string]>> = {
  reject: [
    "Close the room? New visitors are turned away with your message (API clients get 503) " +
    "until you switch it back.",
    "Close the room",
  ],
  passthrough: [
    "Let everyone in? Nobody waits: pause, opening time, rate and capacity no longer hold " +
    "visitors back, and your site takes all the traffic.",
    "Let everyone in",
  ],
};

const num = (v: string) => v.trim() === "" ? null : Number(v);
const str = (v: number | null | undefined) => v === null || v === undefined ? "" : String(v);

export function RoomCard({ queue }: { queue: string }) {
  const [room, setRoom] = useState<RoomSwitch | null>(null);
  // What the operator typed, and the switch as stored when they began (for checkedSave).
  type Form = Record<string, string>;
  const [draft, setDraft] = useState<{ form: Form; base: Form } | null>(null);
  const path = `/api/admin/room?queue=${encodeURIComponent(queue)}`;
  usePolling(() => void api<RoomSwitch>("GET", path).then(setRoom).catch(() => {}), POLL_MS, [
    queue,
  ]);
  const a = useAction();
  if (!room) return null;
  // The form shows the stored switch until the operator edits it.
  const stored = formOf(room);
  const f = draft?.form ?? stored;
  const edit = (k: string) => (v: string) =>
    setDraft({ form: { ...f, [k]: v }, base: draft?.base ?? stored });
  const st = room.safetyNetState;
  const save = async () => {
    const ask = f.mode !== room.mode && ASK[f.mode as Mode];
    if (ask && !await confirmAction(`${queue}: ${ask[0]}`, ask[1])) return;
    await a.run(async () => {
      // Each field another tab saved meanwhile, and left alone here, keeps its stored value.
      const f = await checkedSave(
        editsOf(LABELS, draft?.base ?? stored, draft?.form ?? stored),
        async () => formOf(await api<RoomSwitch>("GET", path)),
        // The stored mode in the words the form shows ("Everyone waits", not "queue_all").
        { mode: (v) => WORDS[v as Mode]?.split(":")[0] ?? String(v) },
      ) as Record<string, string>;
      const mode = f.mode as Mode;
      const body: Record<string, unknown> = {
        queue,
        mode,
        closedMessage: f.closedMessage,
        retryAfterSeconds: Number(f.retryAfterSeconds),
      };
      if (mode === "auto" || f.jHigh || f.hHigh) {
        body.safetyNet = {
          joinsPerMinuteHigh: num(f.jHigh),
          joinsPerMinuteLow: num(f.jLow),
          holdingHigh: num(f.hHigh),
          holdingLow: num(f.hLow),
          calmMinutes: Number(f.calm),
        };
      }
      const out = await api<RoomSwitch>("PUT", "/api/admin/room", body);
      setRoom(out);
      setDraft(null);
      return `The room is now ${out.mode === "auto" ? "on the Safety Net" : out.effectiveMode}.`;
    });
  };
  const mode = f.mode as Mode;
  return (
    <Section title="Room switch" id="adm-room">
      <p id="adm-room-now">
        Visitors meet: <strong>{room.effectiveMode.replace("_", " ")}</strong>
        {st && (
          <span class="muted">
            {` — the Safety Net is ${st.queueing ? "queueing" : "letting everyone through"} since ${
              localTime(st.since)
            }`}
            {st.last && ` (last: ${st.last.joinsPerMinute} joins/min, ${st.last.holding} holding)`}.
          </span>
        )}
      </p>
      <ActionForm act={a} submit="Save switch" onSubmit={save}>
        <Radios
          legend="What visitors meet"
          name="adm-room-mode"
          class="adm-choices"
          options={(Object.keys(WORDS) as Mode[]).map((m) => [m, WORDS[m]] as const)}
          value={mode}
          onChange={edit("mode")}
        />
        {mode === "reject" && (
          <Field
            label="Message on the closed page"
            hint="Shown to visitors; up to 1000 characters."
          >
            {(id) => (
              <textarea
                id={id}
                rows={3}
                maxLength={1000}
                value={f.closedMessage}
                onInput={(e) => edit("closedMessage")((e.target as HTMLTextAreaElement).value)}
              />
            )}
          </Field>
        )}
        {mode === "reject" && (
          <Input
            label="Ask to come back after (seconds)"
            type="number"
            min="1"
            max="86400"
            value={f.retryAfterSeconds}
            onValue={edit("retryAfterSeconds")}
          />
        )}
        {mode === "auto" && (
          <fieldset>
            <legend>Safety Net thresholds</legend>
            <p class="muted">
              The line starts when joins per minute or visitors holding a slot reach the upper value
              (leave a pair empty to ignore it), and stops when both stay below the lower value for
              the calm minutes.
            </p>
            {THRESHOLD_FIELDS.map(([k, label, min, max]) => (
              <Input
                key={k}
                label={label}
                type="number"
                min={min}
                max={max}
                value={f[k]}
                onValue={edit(k)}
              />
            ))}
          </fieldset>
        )}
      </ActionForm>
    </Section>
  );
}
