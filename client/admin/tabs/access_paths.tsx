/// <reference lib="dom" />
/**
 * The Access tab's path rules of the picked queue, edited as text, one rule a line, in order
 * (first match wins): `bypass asset css,js`, `route path /tickets/** tickets`, with `#` for a
 * note. A rule the service refuses is named by its line, beside the text.
 */
import { useState } from "preact/hooks";
import { api, ApiError } from "../api.ts";
import { fieldSentence } from "../../../lib/field_text.ts";
import { ActionForm } from "../forms.tsx";
import { Field, localTime, Section, useAction, useFollowing, usePolling } from "../ui.tsx";
import { checkedSave } from "../stale.ts";
import { type LineError, LineErrors } from "./access_lines.tsx";

/** PathRule in openapi.yaml. */
interface PathRule {
  match: string;
  pattern: string;
  action: string;
  queue?: string;
  note?: string;
}

/** One line of text per rule: `<action> <match> <pattern> [queue] [# note]`. */
export function rulesText(rules: PathRule[]): string {
  return rules.map((r) =>
    [r.action, r.match, r.pattern, r.queue ?? ""].filter(Boolean).join(" ") +
    (r.note ? `  # ${r.note}` : "")
  ).join("\n");
}

/** The rules of `text` and the line each came from (blank and comment lines skipped). */
export function parseRulesText(text: string): { rules: PathRule[]; lines: number[] } {
  const rules: PathRule[] = [];
  const lines: number[] = [];
  text.split("\n").forEach((raw, i) => {
    const hash = raw.indexOf("#");
    const body = (hash < 0 ? raw : raw.slice(0, hash)).trim();
    const note = hash < 0 ? "" : raw.slice(hash + 1).trim();
    if (!body) return;
    const [action = "", match = "", pattern = "", queue] = body.split(/\s+/);
    const r: PathRule = { action, match, pattern };
    if (queue) r.queue = queue;
    if (note) r.note = note;
    rules.push(r);
    lines.push(i + 1);
  });
  return { rules, lines };
}

/** What each word of a rule line is called when it is wrong. */
const PARTS: Record<string, string> = {
  action: "The action (first word)",
  match: "The kind (second word)",
  pattern: "The pattern (third word)",
  queue: "The queue (fourth word)",
};

/**
 * The 400's failing rules as lines of the text: the word that is wrong and what it may be, in
 * the operator's words (a validator's "expected one of" never reaches the page).
 */
function ruleErrors(e: unknown, lines: number[], rules: PathRule[]): LineError[] {
  if (!(e instanceof ApiError)) return [];
  const out: LineError[] = [];
  for (const f of e.fields ?? []) {
    const m = /^rules\.(\d+)(?:\.(\w+))?/.exec(f.path);
    if (!m) continue;
    const i = Number(m[1]);
    const part = m[2] && m[2] in PARTS ? m[2] as keyof PathRule : undefined;
    const values = f.rule?.values;
    const message = part && values?.length
      ? `${PARTS[part]} must be one of: ${values.join(", ")}.`
      : part
      ? `${PARTS[part]}: ${fieldSentence({ ...f, path: part })}`
      : fieldSentence(f);
    const value = (part ? rules[i]?.[part] : undefined) ?? rules[i]?.pattern ?? "";
    out.push({ line: lines[i] ?? i + 1, value: value || "(missing)", message });
  }
  return out;
}

/** Path rules as `GET /api/admin/path-rules` answers them. */
type Saved = { rules: PathRule[]; updatedAt: number };

export function PathRulesSection({ queue }: { queue: string }) {
  const path = `/api/admin/path-rules?queue=${encodeURIComponent(queue)}`;
  const [saved, setSaved] = useState<{ rules: PathRule[]; updatedAt: number } | null>(null);
  const [shown, setText, follow, base] = useFollowing(saved ? rulesText(saved.rules) : "");
  const [bad, setBad] = useState<LineError[]>([]);
  const act = useAction();
  usePolling(
    () =>
      void api<{ rules: PathRule[]; updatedAt: number }>(
        "GET",
        path,
      ).then(setSaved).catch(() => {}),
    30_000,
    [queue],
  );
  const save = () => {
    setBad([]);
    return act.run(async () => {
      const v = await checkedSave(
        { text: ["Rules", base, shown] },
        async () => ({ text: rulesText((await api<Saved>("GET", path)).rules) }),
      );
      const { rules, lines } = parseRulesText(String(v.text));
      try {
        const out = await api("PUT", "/api/admin/path-rules", { queue, rules });
        setSaved(out);
        follow();
        return `Saved: ${out.rules.length} ${out.rules.length === 1 ? "rule" : "rules"}.`;
      } catch (e) {
        const wrong = ruleErrors(e, lines, rules);
        setBad(wrong);
        if (!wrong.length) throw e;
        // The lines say what is wrong; the summary only points at them.
        const which = [...new Set(wrong.map((w) => w.line))].join(", ");
        throw new Error(`Not saved: fix line${wrong.length > 1 ? "s" : ""} ${which} of the rules.`);
      }
    });
  };
  return (
    <Section title="Path rules" id="path-rules">
      <p class="muted">
        For the origin proxy and the nginx, Caddy and Traefik checks of queue{" "}
        {queue}: which requests need a place in line, which pass straight through and which wait in
        another queue. First match wins. Last saved: {localTime(saved?.updatedAt || null)}.
      </p>
      <ActionForm act={act} submit="Save rules" onSubmit={save} loading={!saved}>
        <Field
          label="Rules, one a line"
          hint="action (bypass, queue, route), kind (path, asset, query, address), pattern, and for route the queue; # starts a note. Example: bypass asset css,js,png — route path /tickets/** tickets"
        >
          {(id) => (
            <textarea
              id={id}
              rows={6}
              spellcheck={false}
              value={shown}
              aria-describedby={bad.length ? "path-rules-lines" : undefined}
              aria-invalid={bad.length > 0}
              onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
            />
          )}
        </Field>
        <LineErrors id="path-rules-lines" lines={bad} />
      </ActionForm>
    </Section>
  );
}
