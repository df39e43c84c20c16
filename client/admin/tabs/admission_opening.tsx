/// <reference lib="dom" />
/**
 * The Admission tab's opening card: the pre-queue on or off and its window, the live number of
 * participants, and after the draw its commitment, seed and a link to the record, which the
 * operator may publish (that tells anyone the number of participants).
 */
import { useState } from "preact/hooks";
import { api, basePath, messageOf } from "../api.ts";
import { ActionForm, Input, Radios } from "../forms.tsx";
import {
  confirmAction,
  localTime,
  POLL_MS,
  Section,
  Status,
  useAction,
  useFollowing,
  usePolling,
} from "../ui.tsx";
import { PREQUEUE_WORDS } from "../../../lib/queue/wording.ts";
import type { CardProps, QueueSettings } from "./admission.tsx";
import { settingsNow } from "./admission_now.ts";
import { checkedSave } from "../stale.ts";

/** PrequeueMetrics in openapi.yaml. */
interface Prequeue {
  enabled: boolean;
  windowMinutes: number | null;
  phase: "off" | "before" | "window" | "drawing" | "drawn";
  participants: number;
  commitment: string | null;
  seed: string | null;
  drawnAt: number | null;
  published: boolean;
}

/** What the card says about where the round stands. */
function phaseText(s: QueueSettings, p: Prequeue): string {
  const opens = localTime(s.opensAt);
  const from = s.opensAt && s.prequeueMinutes
    ? localTime(s.opensAt - s.prequeueMinutes * 60_000)
    : "";
  switch (p.phase) {
    case "off":
      return "Off: visitors who come before the opening time queue in arrival order.";
    case "before":
      return `Joins are refused ("not open yet") until the window opens at ${from}.`;
    case "window":
      return `Window open until ${opens}: ${p.participants} waiting for the draw. The opening ` +
        "time and the window are fixed until the draw.";
    case "drawing":
      return `Drawing: placing ${p.participants} participants; admissions start when done.`;
    case "drawn":
      return `Drawn at ${localTime(p.drawnAt)}: ${p.participants} participants got random places.`;
  }
}

/** The draw's commitment (from the window on) and its seed (revealed at the opening). */
function DrawProof({ pre }: { pre: Prequeue }) {
  return (
    <>
      {pre.commitment && (
        <p class="mono">
          Commitment (SHA-256 of the secret seed, shown to every participant):{" "}
          <code>{pre.commitment}</code>
        </p>
      )}
      {pre.seed && (
        <p class="mono">
          Seed (revealed at the opening): <code>{pre.seed}</code>
        </p>
      )}
    </>
  );
}

/** Links to the draw record and check page, and publishing or withdrawing the record. */
function DrawPublish(
  p: {
    pre: Prequeue | null;
    setPre: (f: (x: Prequeue | null) => Prequeue | null) => void;
    queue: string;
  },
) {
  const { pre, queue } = p;
  const q = encodeURIComponent(queue);
  const pub = useAction();
  const publish = async (published: boolean) => {
    if (
      published &&
      !(await confirmAction(
        "Publish the draw record of this queue? Anyone can then read it at /draw, including " +
          "the number of participants, which visitors otherwise see only when “show place in " +
          "line” is on.",
        "Publish",
      ))
    ) return;
    pub.run(async () => {
      await api("PUT", "/api/admin/draw/publish", { queue, published });
      p.setPre((x) => x && { ...x, published });
      return published ? "Published." : "Withdrawn.";
    });
  };
  return (
    <>
      {pre && pre.phase !== "off" && (
        <div class="actions">
          <a
            href={`${basePath()}/draw?queue=${q}`}
            target="_blank"
            rel="noopener"
          >
            Draw record
          </a>
          <a
            href={`${basePath()}/draw/verify?queue=${q}`}
            target="_blank"
            rel="noopener"
          >
            Check page
          </a>
          <button type="button" disabled={pub.busy} onClick={() => publish(!pre.published)}>
            {pre.published ? "Withdraw the draw record" : "Publish the draw record"}
          </button>
        </div>
      )}
      {pre && !pre.published && pre.phase !== "off" && (
        <p class="muted">
          Not published: /draw answers “no_draw” until you publish it. Publishing shows the number
          of participants to anyone.
        </p>
      )}
      <Status s={pub.status} />
    </>
  );
}

/** The queue's fair opening: the pre-queue window, the draw's state, and its record. */
export function OpeningCard({ s, set, queue }: CardProps) {
  const [pre, setPre] = useState<Prequeue | null>(null);
  const [on, setOn, followOn, bOn] = useFollowing<"on" | "off">(s.prequeueMinutes ? "on" : "off");
  const [minutes, setMinutes, followMinutes, bMinutes] = useFollowing(
    String(s.prequeueMinutes ?? 60),
  );
  const a = useAction();
  const q = encodeURIComponent(queue);
  usePolling(
    () => {
      api<{ prequeue: Prequeue }>("GET", `/metrics?queue=${q}`)
        .then((m) => setPre(m.prequeue))
        .catch((e) => a.setStatus({ kind: "error", text: messageOf(e) }));
    },
    POLL_MS,
    [queue, s],
  );
  const locked = pre?.phase === "window" || pre?.phase === "drawing";
  const save = () =>
    a.run(async () => {
      const v = await checkedSave({
        on: ["Before the opening time", bOn, on],
        minutes: ["Window before the opening time", bMinutes, minutes],
      }, async () => {
        const n = await settingsNow(queue);
        return { on: n.prequeueMinutes ? "on" : "off", minutes: String(n.prequeueMinutes ?? 60) };
      });
      const enabled = v.on === "on";
      const body = enabled
        ? { queue, enabled, windowMinutes: Number(v.minutes) }
        : { queue, enabled };
      set(await api<QueueSettings>("PUT", "/api/admin/prequeue", body));
      followOn(on);
      followMinutes(minutes);
      return enabled
        ? `Pre-queue on: ${Number(v.minutes)} minutes before opening.`
        : "Pre-queue off.";
    });
  return (
    <Section title="Fair opening (pre-queue)" id="adm-opening">
      <p class="muted">{PREQUEUE_WORDS}</p>
      {pre && <p>{phaseText(s, pre)}</p>}
      {pre && <DrawProof pre={pre} />}
      <ActionForm
        act={a}
        submit="Save pre-queue"
        disabled={locked}
        onSubmit={() => {
          if (on === "on" && !s.opensAt) {
            a.setStatus({ kind: "error", text: "Set an opening time first." });
            return;
          }
          save();
        }}
      >
        <Radios
          legend="Before the opening time"
          class="adm-choices"
          name="adm-prequeue"
          options={[
            ["off", "No pre-queue: early arrivals keep their arrival order"],
            ["on", "Pre-queue: shuffle everyone who joined in the window at the opening"],
          ]}
          value={on}
          onChange={setOn}
        />
        {on === "on" && (
          <Input
            label="Window before the opening time (minutes)"
            name="windowMinutes"
            hint="1 to 1440 (24 hours). Before it, joins are refused without saying when the room opens; your branding message may announce it."
            describe
            type="number"
            min="1"
            max="1440"
            step="1"
            value={minutes}
            onValue={setMinutes}
          />
        )}
      </ActionForm>
      <DrawPublish pre={pre} setPre={setPre} queue={queue} />
    </Section>
  );
}
