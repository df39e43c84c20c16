/// <reference lib="dom" />
/**
 * The Admission tab's opening time: typed in the operator's own time zone (named by the field),
 * stored as UTC ms, shown with its zone; "Open now" clears it after asking. A time another tab
 * saved meanwhile is named before it is replaced (stale.ts).
 */
import { api } from "../api.ts";
import { ActionForm, Input } from "../forms.tsx";
import { confirmAction, errorStatus, localTime, Section, useAction, useFollowing } from "../ui.tsx";
import { checkedSave } from "../stale.ts";
import { fromLocalInput, toLocalInput, zoneName } from "./admission_time.ts";
import type { CardProps, QueueSettings } from "./admission.tsx";
import { settingsNow } from "./admission_now.ts";

/** The opening time a form shows, in the operator's time zone ("" when none). */
const opensText = (s: QueueSettings) => s.opensAt ? toLocalInput(s.opensAt) : "";

/** The queue's opening time. */
export function ScheduleCard({ s, set, queue }: CardProps) {
  const [value, setValue, followValue, base] = useFollowing(opensText(s));
  const a = useAction();
  const zone = zoneName();
  const save = (opensAt: number | null) =>
    a.run(async () => {
      const out = await api<QueueSettings>("PUT", "/api/admin/schedule", { queue, opensAt });
      set(out);
      if (opensAt === null) followValue();
      else followValue(value);
      return out.opensAt ? `Opens ${localTime(out.opensAt)}.` : "Open now.";
    });
  return (
    <Section title="Opening time" id="adm-schedule">
      <p>
        {s.opensAt && s.opensAt > Date.now()
          ? (
            <>
              Opens <strong>{localTime(s.opensAt)}</strong>.
            </>
          )
          : s.opensAt
          ? `Opened ${localTime(s.opensAt)}: the queue admits now.`
          : "Open: no opening time set."}
      </p>
      <ActionForm
        act={a}
        submit="Save opening time"
        buttons={s.opensAt !== null && (
          <button
            type="button"
            disabled={a.busy}
            onClick={async () => {
              if (
                await confirmAction(
                  `Remove the opening time? ${queue} opens now and admissions start at once.`,
                  "Open now",
                )
              ) save(null);
            }}
          >
            Open now
          </button>
        )}
        onSubmit={async () => {
          if (fromLocalInput(value) === null) {
            a.setStatus({ kind: "error", text: "Pick a date and a time first." });
            return;
          }
          let v;
          try {
            v = await checkedSave(
              { at: ["Opening time", base, value] },
              async () => ({ at: opensText(await settingsNow(queue)) }),
            );
          } catch (e) {
            return a.setStatus(errorStatus(e));
          }
          save(fromLocalInput(String(v.at)));
        }}
      >
        <Input
          label={`Opens at (your time zone: ${zone})`}
          name="opensAt"
          hint="Nobody is admitted before it."
          describe
          type="datetime-local"
          value={value}
          onValue={setValue}
        />
      </ActionForm>
    </Section>
  );
}
