/// <reference lib="dom" />
/**
 * The Admission tab's card for places of silent visitors: how long a waiter that stopped checking
 * in (a locked phone, a frozen tab) keeps its place, and how many that kept and lost.
 */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { num, POLL_MS, Section, useAction, useFollowing, usePolling } from "../ui.tsx";
import { NumberForm } from "./admission_capacity.tsx";
import { checkedSave } from "../stale.ts";

/** ReturnGrace in openapi.yaml. */
interface ReturnGrace {
  queue: string;
  returnGraceSeconds: number;
  silent: number;
  returned: number;
  abandoned: number;
}

/** How long a silent waiter keeps its place, with what the rule kept and dropped. */
export function ReturnGraceCard({ queue }: { queue: string }) {
  const [g, setG] = useState<ReturnGrace | null>(null);
  const path = `/api/admin/return-grace?queue=${encodeURIComponent(queue)}`;
  usePolling(() => void api<ReturnGrace>("GET", path).then(setG).catch(() => {}), POLL_MS, [
    queue,
  ]);
  const [value, setValue, follow, base] = useFollowing(String(g?.returnGraceSeconds ?? ""));
  const a = useAction();
  if (!g) return null;
  return (
    <Section title="Places of visitors who went quiet" id="adm-return-grace">
      <p class="muted" id="adm-return-grace-now">
        {`${g.silent} silent now, their places kept; ${g.returned} came back in time; ${g.abandoned} dropped after the grace.`}
      </p>
      <NumberForm
        act={a}
        label="Keep a quiet visitor's place for (seconds)"
        name="returnGraceSeconds"
        hint={`A phone locked in a pocket or a frozen tab stops checking in. Its place is kept this long after it was due (30 to ${
          num(3600)
        } seconds); nobody is let in in its stead meanwhile, and it goes in at its next check-in if its turn came.`}
        inputMode="numeric"
        min="30"
        max="3600"
        step="1"
        value={value}
        onValue={setValue}
        submit="Save grace"
        onSubmit={() =>
          a.run(async () => {
            const v = await checkedSave(
              { s: ["Keep a quiet visitor's place for", base, value] },
              async () => ({ s: String((await api<ReturnGrace>("GET", path)).returnGraceSeconds) }),
            );
            const out = await api<ReturnGrace>("PUT", "/api/admin/return-grace", {
              queue,
              returnGraceSeconds: Number(v.s),
            });
            setG(out);
            follow(value);
            return `Quiet visitors keep their place ${num(out.returnGraceSeconds)} seconds.`;
          })}
      />
    </Section>
  );
}
