/// <reference lib="dom" />
/**
 * The Admission tab's capacity cards (concurrent capacity and the stale-checked waiting-row cap)
 * and the one-number form the tab's cards share.
 */
import type { ComponentChildren } from "preact";
import { api, ApiError } from "../api.ts";
import { type Action, ActionForm, Input } from "../forms.tsx";
import { confirmAction, num, Section, useAction, useFollowing } from "../ui.tsx";
import { checkedSave } from "../stale.ts";
import type { CardProps, QueueSettings } from "./admission.tsx";
import { settingsNow } from "./admission_now.ts";

/** A card's one-number form: the field with its hint, the submit button (and `buttons`), status. */
export function NumberForm(
  p: {
    act: Action;
    label: string;
    /** The API field it sets (its error shows by it). */
    name: string;
    hint: string;
    value: string;
    onValue: (v: string) => void;
    inputMode: "numeric" | "decimal";
    min: string;
    max?: string;
    step: string;
    submit: string;
    buttons?: ComponentChildren;
    onSubmit: () => unknown;
  },
) {
  const { act, submit, buttons, onSubmit, ...field } = p;
  return (
    <ActionForm act={act} noValidate submit={submit} buttons={buttons} onSubmit={onSubmit}>
      <Input describe type="number" required {...field} />
    </ActionForm>
  );
}

export function CapacityCard({ s, set, queue }: CardProps) {
  const [cap, setCap, followCap, base] = useFollowing(String(s.capacity));
  const a = useAction();
  return (
    <Section title="Capacity" id="adm-capacity">
      <NumberForm
        act={a}
        label="Visitors on the site at once"
        name="capacity"
        hint={`Entered plus admitted-but-not-yet-in. Now ${num(s.capacity)}.`}
        inputMode="numeric"
        min="1"
        max="10000000"
        step="1"
        value={cap}
        onValue={setCap}
        submit="Save capacity"
        onSubmit={() =>
          a.run(async () => {
            const v = await checkedSave(
              { cap: ["Capacity", base, cap] },
              async () => ({ cap: String((await settingsNow(queue)).capacity) }),
            );
            const out = await api<QueueSettings>("PUT", "/api/admin/capacity", {
              queue,
              capacity: Number(v.cap),
            });
            set(out);
            followCap(cap);
            return `Capacity set to ${num(out.capacity)}.`;
          })}
      />
    </Section>
  );
}

export function LimitCard({ s, set, queue }: CardProps) {
  const [cap, setCap, followCap] = useFollowing(String(s.maxWaitingVisitors));
  const a = useAction();
  const submit = async () => {
    const next = Number(cap);
    let current = s.maxWaitingVisitors;
    let waiting: number | null = null;
    try {
      const [lim, m] = await Promise.all([
        api<{ maxWaitingVisitors: number }>(
          "GET",
          `/api/admin/queue-limits?queue=${encodeURIComponent(queue)}`,
        ),
        api<{ queues: { queue: string; waiting: number }[] }>("GET", "/api/admin/metrics"),
      ]);
      current = lim.maxWaitingVisitors;
      waiting = m.queues.find((x) => x.queue === queue)?.waiting ?? null;
    } catch { /* the write below reports what is wrong */ }
    if (Number.isFinite(next) && next < current) {
      const line = waiting !== null && next < waiting
        ? ` ${
          num(waiting)
        } people are waiting now: nobody is removed, but nobody new can join until the line is shorter than ${
          num(next)
        }.`
        : " Newcomers beyond it are turned away (\u201cthe waiting room is full\u201d).";
      const ok = await confirmAction(
        `Lower the waiting-row cap of ${queue} from ${num(current)} to ${num(next)}?${line}`,
        "Lower the cap",
      );
      if (!ok) return;
    }
    a.run(async () => {
      try {
        const out = await api<{ maxWaitingVisitors: number }>("PUT", "/api/admin/queue-limits", {
          queue,
          maxWaitingVisitors: next,
          previousMaxWaitingVisitors: current,
          confirmChanges: true,
        });
        // A change of the newest settings: a refresh may have come in since this card last rendered.
        set((now) => ({ ...now, maxWaitingVisitors: out.maxWaitingVisitors }));
        followCap(cap);
        return `Waiting-row cap set to ${num(out.maxWaitingVisitors)}.`;
      } catch (e) {
        if (e instanceof ApiError && e.status === 409) {
          const lim = await api<{ maxWaitingVisitors: number }>(
            "GET",
            `/api/admin/queue-limits?queue=${encodeURIComponent(queue)}`,
          );
          set((now) => ({ ...now, maxWaitingVisitors: lim.maxWaitingVisitors }));
          throw new Error(
            `Someone else changed the cap meanwhile: it is now ${
              num(lim.maxWaitingVisitors)
            }. Check and save again.`,
          );
        }
        throw e;
      }
    });
  };
  return (
    <Section title="Waiting-row cap" id="adm-limit">
      <NumberForm
        act={a}
        label="Most visitors waiting at once"
        name="maxWaitingVisitors"
        hint={`Joins beyond it get \u201cthe waiting room is full\u201d. Now ${
          num(s.maxWaitingVisitors)
        }.`}
        inputMode="numeric"
        min="1"
        max="50000000"
        step="1"
        value={cap}
        onValue={setCap}
        submit="Save waiting cap"
        onSubmit={submit}
      />
    </Section>
  );
}
