/// <reference lib="dom" />
/**
 * The Admission tab's join-guard cards: the bot check on join (off, on, automatic above the
 * operator's thresholds; built-in proof of work, Turnstile or both; base difficulty), one place
 * per person (enqueue tokens), and the last hour's counts of refused and challenged joins. They
 * refresh every few seconds while the page is visible; edited fields keep their value until saved.
 */
import { useState } from "preact/hooks";
import { api, messageOf } from "../api.ts";
import { ActionForm, Check, Input, Radios } from "../forms.tsx";
import { ShadowCard } from "./admission_shadow.tsx";
import { guardsNow } from "./admission_now.ts";
import { num, POLL_MS, Section, useAction, useFollowing, usePolling } from "../ui.tsx";
import { checkedSave, type Edited } from "../stale.ts";

/** JoinGuards in openapi.yaml. */
export interface JoinGuards {
  queue: string;
  challenge: "off" | "on" | "auto";
  provider: "builtin" | "turnstile" | "both";
  difficulty: number;
  autoJoinsPerMinute: number;
  autoWaiting: number;
  requireEnqueueToken: boolean;
  shadowLine: boolean;
  shadowOverLimitFactor: number;
  active: boolean;
  joinsPerMinute: number;
  waiting: number;
  turnstileLive: boolean;
  enqueueSecretSet: boolean;
  lastHour: Record<
    | "rateLimited"
    | "challengesIssued"
    | "challengesSolved"
    | "challengesFailed"
    | "enqueueTokensRefused"
    | "shadowPlaced",
    number
  >;
}

const COUNT_LABELS: [keyof JoinGuards["lastHour"], string][] = [
  ["rateLimited", "Joins refused by the per-client limit"],
  ["challengesIssued", "Challenges issued"],
  ["challengesSolved", "Challenges solved"],
  ["challengesFailed", "Challenges failed (wrong, expired, replayed…)"],
  ["enqueueTokensRefused", "Enqueue tokens refused"],
  ["shadowPlaced", "Placed in the shadow line"],
];

/** The join-guard cards of `queue`. */
export function GuardCards({ queue }: { queue: string }) {
  const [g, setG] = useState<JoinGuards | null>(null);
  const [err, setErr] = useState<string | null>(null);
  usePolling(
    () => {
      api<JoinGuards>("GET", `/api/admin/join-guards?queue=${encodeURIComponent(queue)}`)
        .then((r) => (setG(r), setErr(null)))
        .catch((e) => setErr(messageOf(e)));
    },
    POLL_MS,
    [queue],
  );
  if (!g) {
    return (
      <Section title="Bot check on join" id="adm-guards">
        <p role="status">{err ?? "Loading…"}</p>
      </Section>
    );
  }
  return (
    <>
      <ChallengeCard g={g} set={setG} queue={queue} />
      <EnqueueCard g={g} set={setG} queue={queue} />
      <ShadowCard g={g} set={setG} queue={queue} />
      <Section title="Refused and challenged joins, last hour" id="adm-guard-counts">
        <table class="counts">
          <tbody>
            {COUNT_LABELS.map(([k, label]) => (
              <tr key={k}>
                <th scope="row">{label}</th>
                <td>{g.lastHour[k].toLocaleString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {err && <p class="status error">Could not refresh: {err}</p>}
      </Section>
    </>
  );
}

/** What each guard card gets: the guards, their setter and the queue. */
export interface GuardProps {
  g: JoinGuards;
  set: (g: JoinGuards) => void;
  queue: string;
}

/** The bot check's fields as the card names them. */
const GUARD_FIELDS = {
  challenge: "When joins need the check",
  provider: "Which check",
  difficulty: "Puzzle size",
  autoJoinsPerMinute: "Automatic: on above this many joins a minute",
  autoWaiting: "Automatic: on above this many waiting",
};

function ChallengeCard({ g, set, queue }: GuardProps) {
  const [mode, setMode, followMode, bMode] = useFollowing(g.challenge);
  const [provider, setProvider, followProvider, bProvider] = useFollowing(g.provider);
  const [difficulty, setDifficulty, followDifficulty, bDifficulty] = useFollowing(
    String(g.difficulty),
  );
  const [rate, setRate, followRate, bRate] = useFollowing(String(g.autoJoinsPerMinute));
  const [line, setLine, followLine, bLine] = useFollowing(String(g.autoWaiting));
  const a = useAction();
  const save = () =>
    a.run(async () => {
      const fields: Record<keyof typeof GUARD_FIELDS, Edited> = {
        challenge: [GUARD_FIELDS.challenge, bMode, mode],
        provider: [GUARD_FIELDS.provider, bProvider, provider],
        difficulty: [GUARD_FIELDS.difficulty, bDifficulty, difficulty],
        autoJoinsPerMinute: [GUARD_FIELDS.autoJoinsPerMinute, bRate, rate],
        autoWaiting: [GUARD_FIELDS.autoWaiting, bLine, line],
      };
      const v = await checkedSave(fields, async () => {
        const n = await guardsNow(queue);
        return {
          challenge: n.challenge,
          provider: n.provider,
          difficulty: String(n.difficulty),
          autoJoinsPerMinute: String(n.autoJoinsPerMinute),
          autoWaiting: String(n.autoWaiting),
        };
      });
      const out = await api<JoinGuards>("PUT", "/api/admin/join-guards", {
        queue,
        challenge: v.challenge,
        provider: v.provider,
        difficulty: Number(v.difficulty),
        autoJoinsPerMinute: Number(v.autoJoinsPerMinute),
        autoWaiting: Number(v.autoWaiting),
      });
      set(out);
      followMode(mode), followProvider(provider), followDifficulty(difficulty);
      followRate(rate), followLine(line);
      return `Saved: the check is ${out.active ? "on" : "off"} now.`;
    });
  return (
    <Section title="Bot check on join" id="adm-guards">
      <p>
        The check is <strong>{g.active ? "on" : "off"}</strong> now ({g.joinsPerMinute}{" "}
        joins a minute, {g.waiting.toLocaleString()} waiting).{" "}
        <span class="muted">
          A visitor who already has a place never sees it; API clients get the challenge_required
          error.
        </span>
      </p>
      <ActionForm act={a} submit="Save bot check" noValidate onSubmit={save}>
        <Radios
          legend="When joins need the check"
          class="adm-choices"
          name="adm-guard-mode"
          options={[
            ["off", "Never"],
            ["auto", "Automatically, while joins or the line are above the thresholds below"],
            ["on", "Always"],
          ]}
          value={mode}
          onChange={setMode}
        />
        <Radios
          legend="Which check"
          class="adm-choices"
          name="adm-guard-provider"
          options={[
            ["builtin", "Built-in: the browser solves a small puzzle (no third party)"],
            ["turnstile", "Cloudflare Turnstile"],
            ["both", "Both"],
          ]}
          value={provider}
          onChange={setProvider}
        />
        {provider !== "builtin" && !g.turnstileLive && (
          <p class="status error" role="status">
            No Turnstile widget is live or Turnstile cannot be reached: the built-in check stands in
            until it is.
          </p>
        )}
        <Input
          label="Puzzle size (tries a visitor needs on average)"
          name="difficulty"
          hint={`${
            num(750000)
          } takes 1 to 3 s on a phone. It grows for clients that join often and while the queue is flooded.`}
          describe
          type="number"
          min="1000"
          max="100000000"
          step="1"
          value={difficulty}
          onValue={setDifficulty}
        />
        <Input
          label="Automatic: on above this many joins a minute"
          name="autoJoinsPerMinute"
          type="number"
          min="1"
          step="1"
          value={rate}
          onValue={setRate}
        />
        <Input
          label="Automatic: on above this many waiting"
          name="autoWaiting"
          type="number"
          min="1"
          step="1"
          value={line}
          onValue={setLine}
        />
      </ActionForm>
    </Section>
  );
}

function EnqueueCard({ g, set, queue }: GuardProps) {
  const [value, setNeed, followNeed, base] = useFollowing(g.requireEnqueueToken);
  const a = useAction();
  return (
    <Section title="One place per person" id="adm-enqueue">
      <p class="muted">
        Your site signs an enqueue token for each person (key: an account or order id) with
        ENQUEUE_SECRET and sends them to /wait?enqueueToken=…; a key holds one place at a time.
      </p>
      {!g.enqueueSecretSet && (
        <p class="status error" role="status">ENQUEUE_SECRET is not set on this service.</p>
      )}
      <ActionForm
        act={a}
        submit="Save"
        disabled={value === g.requireEnqueueToken}
        onSubmit={() =>
          a.run(async () => {
            const v = await checkedSave(
              { need: ["Joining needs an enqueue token", base, value] },
              async () => ({ need: (await guardsNow(queue)).requireEnqueueToken }),
            );
            const out = await api<JoinGuards>("PUT", "/api/admin/join-guards", {
              queue,
              requireEnqueueToken: v.need,
            });
            set(out);
            followNeed();
            return out.requireEnqueueToken
              ? "Joining now needs an enqueue token."
              : "Enqueue tokens are optional now.";
          })}
      >
        <Check
          label="Joining needs an enqueue token from our site"
          checked={value}
          onChange={setNeed}
        />
      </ActionForm>
    </Section>
  );
}
