/// <reference lib="dom" />
/**
 * The waiting page's offers beside the place: "continue on another device" (a code, its link and
 * a QR code, made on request: each code is one write, so none is made for visitors who never
 * ask) and, when the operator set up e-mail, "e-mail me when it's my turn". Visitor words come
 * from the page's catalogue (`resume.*` keys), in the visitor's language.
 */
import { useEffect, useState } from "preact/hooks";
import type { Catalogue } from "../lib/i18n/messages/en.ts";
import { rich } from "./rich.tsx";
import { t } from "../lib/i18n/format.ts";
import { QrCode } from "./qr.tsx";
import { useScript } from "./wait_room_parts.tsx";
import { withReturn } from "../lib/destination.ts";

/** POSTs (or DELETEs) JSON; the response, or null when the network failed. */
function send(url: string, method: string, body: unknown): Promise<Response | null> {
  return fetch(url, {
    method,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  }).catch(() => null);
}

/** "Continue on another device": shows a fresh code, its link and its QR code. */
export function MoveOffer(
  p: {
    queue: string;
    base: string;
    qrSrc?: string;
    /** The page the visitor asked for: the link and the code form carry it to the other device. */
    returnPath: string;
    onMoved: () => void;
    onEnded: () => void;
    m: Catalogue;
  },
) {
  const { m } = p;
  const [got, setGot] = useState<{ code: string; link: string } | null>(null);
  const [error, setError] = useState("");
  const [copied, setCopied] = useState(false);
  const script = useScript();

  async function show() {
    setError("");
    const res = await send(`${p.base}/resume/code`, "POST", { queue: p.queue });
    if (res?.ok) {
      const made: { code: string; link: string } = await res.json();
      return setGot({ ...made, link: withReturn(made.link, p.returnPath) });
    }
    const code = await res?.json().then((b) => b?.error?.code).catch(() => "");
    if (code === "place_moved") return p.onMoved();
    setError(res?.status === 429 ? m["resume.tooMany"] : m["resume.badCode"]);
  }

  // While a code is shown, learn at once when it was used or its place ended (one read every
  // 3 s, no write): a dead code is not left on the screen. 401: this browser's ticket is gone
  // (the place was left in another tab, which clears it), so it holds no place here either.
  useEffect(() => {
    if (!got) return;
    const id = setInterval(async () => {
      const res = await fetch(`${p.base}/resume/held?queue=${encodeURIComponent(p.queue)}`)
        .catch(() => null);
      if (res?.status !== 409 && res?.status !== 404 && res?.status !== 401) {
        return void res?.body?.cancel();
      }
      const code = await res.json().then((b) => b?.error?.code).catch(() => "");
      if (code === "place_moved") p.onMoved();
      if (code === "not_in_queue" || code === "unauthorized") p.onEnded();
    }, 3000);
    return () => clearInterval(id);
  }, [got]);

  async function copy() {
    if (!got) return;
    try {
      await navigator.clipboard.writeText(got.link);
      setCopied(true);
    } catch { /* not allowed here: the link stays selectable */ }
  }

  return (
    <details class="move">
      <summary>{m["resume.offer"]}</summary>
      <p class="hint">{m["resume.offerHint"]}</p>
      {!got && script && (
        <button type="button" class="button" onClick={show}>{m["resume.showCode"]}</button>
      )}
      {!got && (
        <p class="hint">
          {m["resume.haveCode"]}{" "}
          <a
            href={withReturn(
              `${p.base}/wait?queue=${encodeURIComponent(p.queue)}&resume=`,
              p.returnPath,
            )}
          >
            {m["resume.enterCode"]}
          </a>
        </p>
      )}
      {error && <p class="error" role="alert">{error}</p>}
      {got && (
        <div class="move-code">
          <p class="label">{m["resume.codeLabel"]}</p>
          <p class="code" data-code={got.code}>
            <strong>{got.code}</strong>
          </p>
          <QrCode text={got.link} label={m["resume.qrLabel"]} src={p.qrSrc} />
          <p>
            {rich(m, "resume.link", {
              link: <a href={got.link} class="move-link" dir="ltr">{got.link}</a>,
            })}{" "}
            <button type="button" onClick={copy}>
              {copied ? m["resume.copied"] : m["resume.copyLink"]}
            </button>
          </p>
          <p class="hint">{t(m, "resume.codeHint", { offer: m["resume.offer"] })}</p>
        </div>
      )}
    </details>
  );
}

/** "E-mail me when it's my turn": keeps the address until the e-mail goes or the place ends. */
export function MailOffer(p: { queue: string; base: string; returnPath: string; m: Catalogue }) {
  const { m } = p;
  const [state, setState] = useState<"idle" | "saved" | "bad" | "error">("idle");
  const [email, setEmail] = useState("");
  // Without the script the form would send the address in the page's URL: offered with it only.
  const script = useScript();
  if (!script) return null;

  async function save(e: Event) {
    e.preventDefault();
    // The page the visitor asked for goes along: the e-mail's link lands there at the turn.
    const back = p.returnPath ? { return: p.returnPath } : {};
    const res = await send(`${p.base}/turn-email`, "POST", { queue: p.queue, email, ...back });
    setState(res?.ok ? "saved" : res?.status === 400 ? "bad" : "error");
  }

  async function cancel() {
    const res = await send(`${p.base}/turn-email`, "DELETE", { queue: p.queue });
    if (res?.ok) setState("idle");
  }

  if (state === "saved") {
    return (
      <div class="mail">
        <p role="status">{m["resume.mailSaved"]}</p>
        <button type="button" onClick={cancel}>{m["resume.mailCancel"]}</button>
      </div>
    );
  }
  return (
    <details class="mail">
      <summary>{m["resume.mailOffer"]}</summary>
      <form onSubmit={save}>
        <label>
          {m["resume.mailLabel"]}
          <input
            type="email"
            name="email"
            autocomplete="email"
            required
            maxLength={254}
            value={email}
            onInput={(e) => setEmail((e.target as HTMLInputElement).value)}
          />
        </label>
        <button type="submit" class="button">{m["resume.mailSave"]}</button>
        {state === "bad" && <p class="error" role="alert">{m["resume.mailBad"]}</p>}
        {state === "error" && <p class="error" role="alert">{m["resume.mailError"]}</p>}
      </form>
    </details>
  );
}
