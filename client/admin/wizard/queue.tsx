/// <reference lib="dom" />
/**
 * Step 4: the queue visitors wait in. Pick an existing queue or name a new one, and its
 * admission mode: first come, first served, or a lottery among everyone waiting at each admission.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../api.ts";
import { ActionForm, Radios } from "../forms.tsx";
import { Field, useAction, useId } from "../ui.tsx";
import type { StepProps } from "./types.ts";
import { LOTTERY_MODE_WORDS, QUEUE_MODE_WORDS } from "../../../lib/queue/wording.ts";

interface QueueView {
  queue: string;
  mode: "queue" | "lottery";
}

/**
 * Sets an existing queue's mode or creates the new queue (with its session mode), records the
 * step, and remembers the queue as the control room's pick.
 */
async function saveQueue(
  queue: string,
  mode: QueueView["mode"],
  existing: boolean,
  sessions: "fixed" | "sliding",
) {
  if (existing) await api("POST", "/api/admin/mode", { queue, mode });
  else {
    await api("POST", "/api/admin/queues", { name: queue, mode });
    if (sessions === "sliding") {
      await api("PUT", "/api/admin/sessions", { queue, sessionMode: "sliding" });
    }
  }
  await api("POST", "/api/admin/setup/step", { step: "queue", queue });
  localStorage.setItem("tg-admin-queue", queue);
}

/** The queue step: pick or name the queue, and its admission mode. */
export function QueueStep(p: StepProps) {
  const [queues, setQueues] = useState<QueueView[] | null>(null);
  const [name, setName] = useState(p.progress?.steps.queueName ?? "");
  const [mode, setMode] = useState<"queue" | "lottery">("queue");
  // Sliding sessions serve more visitors at the same capacity: suggested for a new queue.
  const [sessions, setSessions] = useState<"fixed" | "sliding">("sliding");
  const a = useAction();
  const edited = useRef(false);
  const listId = useId("queues");
  const modeName = useId("mode");

  useEffect(() => {
    a.run(async () => {
      const r = await api<{ queues: QueueView[] }>("GET", "/api/admin/queues");
      setQueues(r.queues);
      // What the operator typed or chose while the list loaded wins over the defaults.
      if (edited.current) return "";
      const pick = r.queues.find((q) => q.queue === name) ?? r.queues[0];
      if (!name && pick) setName(pick.queue);
      if (pick) setMode(pick.mode);
      return "";
    });
  }, []);
  const existing = queues?.find((q) => q.queue === name.trim());

  return (
    <ActionForm
      act={a}
      submit={`${existing ? "Use this queue" : "Create queue"} and continue`}
      onSubmit={async () => {
        const queue = name.trim();
        const out = await a.run(async () => {
          await saveQueue(queue, mode, !!existing, sessions);
          await p.reload();
          return `Queue ${queue} ${existing ? "saved" : "created"} (${mode}).`;
        });
        if (out) p.next();
      }}
    >
      <p>
        Visitors wait in a queue. Use an existing one or name a new one: lowercase letters, digits,
        - and _, starting with a letter or digit, at most 64 characters.
      </p>
      <Field
        label="Queue name"
        name="name"
        hint={queues?.length ? `Existing: ${queues.map((q) => q.queue).join(", ")}` : undefined}
      >
        {(id, errId) => (
          <>
            <input
              id={id}
              aria-invalid={errId ? true : undefined}
              aria-describedby={errId}
              list={listId}
              required
              autocomplete="off"
              value={name}
              onInput={(e) => {
                edited.current = true;
                const v = e.currentTarget.value;
                setName(v);
                const q = queues?.find((x) => x.queue === v.trim());
                if (q) setMode(q.mode);
              }}
            />
            <datalist id={listId}>
              {queues?.map((q) => <option key={q.queue} value={q.queue} />)}
            </datalist>
          </>
        )}
      </Field>
      <Radios
        legend="Admission mode"
        class="wz-mode"
        name={modeName}
        options={[
          ["queue", QUEUE_MODE_WORDS],
          ["lottery", LOTTERY_MODE_WORDS],
        ]}
        value={mode}
        onChange={(m) => {
          edited.current = true;
          setMode(m);
        }}
      />
      {!existing && (
        <Radios
          legend="Visitor sessions"
          class="wz-mode"
          name={`${modeName}-sessions`}
          options={[
            ["sliding", "Sliding (suggested): a slot is freed once its visitor is idle"],
            ["fixed", "Fixed: a slot is held for the access token's whole lifetime"],
          ]}
          value={sessions}
          onChange={setSessions}
        />
      )}
    </ActionForm>
  );
}
