/// <reference lib="dom" />
/**
 * The Admission tab's fairness card: how many new places one client may take per minute, and
 * what the limit refused in the last hour (refreshed with the tab).
 */
import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { num, POLL_MS, Section, useAction, useFollowing, usePolling } from "../ui.tsx";
import { NumberForm } from "./admission_capacity.tsx";
import { checkedSave } from "../stale.ts";

/** JoinLimits in openapi.yaml. */
interface JoinLimits {
  queue: string;
  joinsPerClientPerMinute: number;
  default: boolean;
  refusedLastHour: Record<string, number>;
}

export function JoinLimitCard({ queue }: { queue: string }) {
  const [lim, setLim] = useState<JoinLimits | null>(null);
  const path = `/api/admin/join-limits?queue=${encodeURIComponent(queue)}`;
  usePolling(() => void api<JoinLimits>("GET", path).then(setLim).catch(() => {}), POLL_MS, [
    queue,
  ]);
  const [value, setValue, follow, base] = useFollowing(String(lim?.joinsPerClientPerMinute ?? ""));
  const a = useAction();
  if (!lim) return null;
  const refused = lim.refusedLastHour.client_limit ?? 0;
  return (
    <Section title="New places per visitor address" id="adm-join-limit">
      <p class="muted" id="adm-join-limit-refused">
        {refused === 0
          ? "No join was refused by this limit in the last hour."
          : `${refused} ${
            refused === 1 ? "join was" : "joins were"
          } refused by this limit in the last hour.`}
      </p>
      <NumberForm
        act={a}
        label="New places one address may take per minute"
        name="joinsPerClientPerMinute"
        hint={`An IPv4 address or an IPv6 /64; 0 turns the limit off. Returning visitors never count. Now ${
          num(lim.joinsPerClientPerMinute)
        }${lim.default ? " (the default)" : ""}.`}
        inputMode="numeric"
        min="0"
        max="100000"
        step="1"
        value={value}
        onValue={setValue}
        submit="Save limit"
        onSubmit={() =>
          a.run(async () => {
            const v = await checkedSave(
              { n: ["New places one address may take per minute", base, value] },
              async () => ({
                n: String((await api<JoinLimits>("GET", path)).joinsPerClientPerMinute),
              }),
            );
            const out = await api<JoinLimits>("PUT", "/api/admin/join-limits", {
              queue,
              joinsPerClientPerMinute: Number(v.n),
            });
            setLim(out);
            follow(value);
            return out.joinsPerClientPerMinute === 0
              ? "No limit on new places per address."
              : `At most ${num(out.joinsPerClientPerMinute)} new places per address a minute.`;
          })}
      />
    </Section>
  );
}
