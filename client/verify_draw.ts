/// <reference lib="dom" />
/**
 * Browser entry of /draw/verify: fetches the published draw record (or reads a pasted one) and
 * recomputes it with the same code as `deno task verify-draw`, then finds the visitor's place.
 */
import { type PublicDraw, verifyDraw } from "../lib/queue/draw_scheme.ts";
import { num, t } from "../lib/i18n/format.ts";
import type { Catalogue, MessageKey } from "../lib/i18n/messages/en.ts";

const props = JSON.parse(document.getElementById("tg-props")?.textContent ?? "{}");
/** The page's messages, embedded by the server in the visitor's language. */
const m: Catalogue = props.m;
const lang: string = props.lang ?? "en";
const out = document.getElementById("tg-verify-out")!;
const arrivalRow = document.getElementById("tg-verify-arrival-row")!;
const arrival = document.getElementById("tg-verify-arrival") as HTMLInputElement;
let last: Partial<PublicDraw> | null = null;

/** A moment (ISO text) in the reader's language, in UTC as published. */
function when(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return new Intl.DateTimeFormat(lang, {
    dateStyle: "medium",
    timeStyle: "medium",
    timeZone: "UTC",
  })
    .format(d) + " UTC";
}

/** Shows each check as a line with a tick or a cross, then the visitor's place when asked. */
function show(r: Partial<PublicDraw>): void {
  last = r;
  const check = verifyDraw(r);
  out.replaceChildren();
  const head = document.createElement("p");
  head.className = check.ok ? "turn" : "hint";
  head.textContent = check.ok
    ? t(m, "draw.ok", { count: num(lang, r.list?.length ?? 0) })
    : m["draw.bad"];
  const ul = document.createElement("ul");
  for (const l of check.lines) {
    const li = document.createElement("li");
    const key = `draw.${l.key}` as MessageKey;
    const values = { ...l.values, ...(l.values.at ? { at: when(String(l.values.at)) } : {}) };
    li.textContent = `${l.ok ? "✔" : "✘"} ${key in m ? t(m, key, values) : l.text}`;
    ul.append(li);
  }
  out.append(head, ul);
  arrivalRow.hidden = !check.ok;
  place();
}

/** The drawn place of the arrival number typed in. */
function place(): void {
  const n = Number(arrival.value);
  const old = document.getElementById("tg-verify-place");
  old?.remove();
  if (!last?.order || !arrival.value) return;
  const p = document.createElement("p");
  p.id = "tg-verify-place";
  const i = last.order.indexOf(n);
  p.textContent = i < 0 ? t(m, "draw.notInList", { arrival: num(lang, n) }) : t(m, "draw.placed", {
    arrival: num(lang, n),
    place: num(lang, i + 1),
    total: num(lang, last.order.length),
  });
  out.append(p);
}

function fail(text: string): void {
  out.replaceChildren(
    Object.assign(document.createElement("p"), { className: "hint", textContent: text }),
  );
}

document.getElementById("tg-verify-fetch")!.addEventListener("click", async () => {
  out.textContent = m["draw.checking"];
  try {
    const res = await fetch(`${props.base ?? ""}/draw?queue=${encodeURIComponent(props.queue)}`, {
      cache: "no-store",
    });
    const body = await res.json();
    if (!res.ok) return fail(t(m, "draw.serverSaid", { status: res.status }));
    show(body);
  } catch {
    fail(m["draw.fetchFailed"]);
  }
});
document.getElementById("tg-verify-paste")!.addEventListener("click", () => {
  try {
    show(JSON.parse((document.getElementById("tg-verify-text") as HTMLTextAreaElement).value));
  } catch {
    fail(m["draw.notJson"]);
  }
});
arrival.addEventListener("input", place);
