/// <reference lib="dom" />
/**
 * The Admission tab's shadow line card: with the bot check on, clients that fail it or flood are
 * shown a place that never moves instead of an error their script could react to.
 */
import { api } from "../api.ts";
import { ActionForm, Check, Input } from "../forms.tsx";
import { Section, useAction, useFollowing } from "../ui.tsx";
import { checkedSave } from "../stale.ts";
import type { GuardProps, JoinGuards } from "./admission_guards.tsx";
import { guardsNow } from "./admission_now.ts";

/** The shadow line: failed or flooding clients wait in a line that never admits. */
export function ShadowCard({ g, set, queue }: GuardProps) {
  const [value, setOn, followOn, bOn] = useFollowing(g.shadowLine);
  const [times, setFactor, followFactor, bTimes] = useFollowing(String(g.shadowOverLimitFactor));
  const a = useAction();
  return (
    <Section title="Shadow line for bots" id="adm-shadow">
      <p class="muted">
        With the bot check on, a client that sends a wrong, forged or replayed solution, or keeps
        taking new places far past its limit, is shown a place that looks real and never moves to
        the front, instead of an error its script could react to. Nothing is stored for it; it never
        counts in the real line. Shadow places are counted under refused joins.
      </p>
      {g.challenge === "off" && (
        <p class="status" role="status">The bot check is off: the shadow line waits for it.</p>
      )}
      <ActionForm
        act={a}
        submit="Save"
        disabled={value === g.shadowLine && times === String(g.shadowOverLimitFactor)}
        onSubmit={() =>
          a.run(async () => {
            const v = await checkedSave({
              on: ["Put failing and flooding clients in the shadow line", bOn, value],
              times: ["Flooding factor", bTimes, times],
            }, async () => {
              const n = await guardsNow(queue);
              return { on: n.shadowLine, times: String(n.shadowOverLimitFactor) };
            });
            const out = await api<JoinGuards>("PUT", "/api/admin/join-guards", {
              queue,
              shadowLine: v.on,
              shadowOverLimitFactor: Number(v.times),
            });
            set(out);
            followOn();
            followFactor();
            return out.shadowLine ? "The shadow line is on." : "The shadow line is off.";
          })}
      >
        <Check
          label="Put failing and flooding clients in the shadow line"
          checked={value}
          onChange={setOn}
        />
        <Input
          label="Flooding: at this many times the per-address limit (0: never)"
          type="number"
          min="0"
          max="100"
          step="1"
          value={times}
          onValue={setFactor}
        />
      </ActionForm>
    </Section>
  );
}
