/// <reference lib="dom" />
/**
 * The branding form's visitor messages: pick a language and a message, type the queue's own
 * wording (empty: the built-in text), see the ones already set. The language picked here is also
 * the language of the preview. Keys and the English reference come from the catalogues.
 */
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import type { MessageOverrides } from "../../../lib/i18n/catalogues.ts";
import { type Lang, LANG_NAMES, LANGS } from "../../../lib/i18n/langs.ts";
import { en, type MessageKey } from "../../../lib/i18n/messages/en.ts";
import { BField, invalid } from "./branding_fields.tsx";

const KEYS = Object.keys(en) as MessageKey[];

/** The operator's wording, edited per language and key. */
export function MessageFields(
  p: {
    value: MessageOverrides;
    disabled: boolean;
    extra?: ComponentChildren;
    lang: Lang;
    onLang: (l: Lang) => void;
    onChange: (v: MessageOverrides) => void;
  },
) {
  const [key, setKey] = useState<MessageKey>("page.title");
  const own = p.value[p.lang] ?? {};
  const set = (text: string) => {
    const next = { ...own, [key]: text };
    if (!text.trim()) delete next[key];
    const all: MessageOverrides = { ...p.value, [p.lang]: next };
    if (!Object.keys(next).length) delete all[p.lang];
    p.onChange(all);
  };
  const set_ = Object.entries(p.value).flatMap(([l, texts]) =>
    Object.keys(texts ?? {}).map((k) => [l as Lang, k as MessageKey] as const)
  );
  return (
    <fieldset class="branding-messages">
      <legend>Visitor messages</legend>
      {p.extra}
      <BField label="Language (also of the preview)" name="messagesLanguage">
        {(id) => (
          <select
            id={id}
            value={p.lang}
            onChange={(e) => p.onLang((e.target as HTMLSelectElement).value as Lang)}
          >
            {LANGS.map((l) => <option key={l} value={l}>{LANG_NAMES[l]} ({l})</option>)}
          </select>
        )}
      </BField>
      <BField label="Which message" name="messagesKey" hint={`English: ${en[key]}`}>
        {(id) => (
          <select
            id={id}
            value={key}
            aria-describedby={`${id}-hint`}
            onChange={(e) => setKey((e.target as HTMLSelectElement).value as MessageKey)}
          >
            {KEYS.map((k) => <option key={k} value={k}>{k}</option>)}
          </select>
        )}
      </BField>
      <BField
        label={`Your wording (${LANG_NAMES[p.lang]})`}
        name="messages"
        hint="Empty: the built-in text. Keep the {names} in braces: the page fills them in."
      >
        {(id, errId) => (
          <textarea
            id={id}
            disabled={p.disabled}
            maxLength={1000}
            value={own[key] ?? ""}
            {...invalid(id, errId)}
            onInput={(e) => set((e.target as HTMLTextAreaElement).value)}
          />
        )}
      </BField>
      {set_.length > 0 && (
        <ul class="branding-message-list" aria-label="Messages in your words">
          {set_.map(([l, k]) => (
            <li key={`${l} ${k}`}>
              <code>{l}</code> <code>{k}</code>: {p.value[l]?.[k]}
            </li>
          ))}
        </ul>
      )}
    </fieldset>
  );
}
