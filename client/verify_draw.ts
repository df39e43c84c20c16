/// <reference lib="dom" />
/**
 * Browser entry of /draw/verify: fetches the published draw record (or reads a pasted one) and
 * recomputes it with the same code as `deno task verify-draw`, then finds the visitor's place.
 */
import { type PublicDraw, verifyDraw } from "../lib/queue/draw_scheme.ts";

const props = JSON.parse(document.getElementById("tg-props")?.textContent ?? "{}");
const out = document.getElementById("tg-verify-out")!;
const arrivalRow = document.getElementById("tg-verify-arrival-row")!;
const arrival = document.getElementById("tg-verify-arrival") as HTMLInputElement;
let last: Partial<PublicDraw> | null = null;

/** Shows each check as a line with a tick or a cross, then the visitor's place when asked. */
function show(r: Partial<PublicDraw>): void {
  last = r;
  const check = verifyDraw(r);
  out.replaceChildren();
  const head = document.createElement("p");
  head.className = check.ok ? "turn" : "hint";
  head.textContent = check.ok
    ? `The draw checks out: ${r.list?.length ?? 0} participant${
      r.list?.length === 1 ? "" : "s"
    }, order recomputed.`
    : "The draw does NOT check out (see below).";
  const ul = document.createElement("ul");
  for (const l of check.lines) {
    const li = document.createElement("li");
    li.textContent = `${l.ok ? "✔" : "✘"} ${l.text}`;
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
  p.textContent = i < 0
    ? `Arrival number ${n} is not in the list.`
    : `Arrival number ${n} was drawn to place ${i + 1} of ${last.order.length}.`;
  out.append(p);
}

function fail(text: string): void {
  out.replaceChildren(
    Object.assign(document.createElement("p"), { className: "hint", textContent: text }),
  );
}

document.getElementById("tg-verify-fetch")!.addEventListener("click", async () => {
  out.textContent = "Checking…";
  try {
    const res = await fetch(`${props.base ?? ""}/draw?queue=${encodeURIComponent(props.queue)}`, {
      cache: "no-store",
    });
    const body = await res.json();
    if (!res.ok) return fail(body?.error?.message ?? `The server answered ${res.status}.`);
    show(body);
  } catch {
    fail("The draw record could not be fetched.");
  }
});
document.getElementById("tg-verify-paste")!.addEventListener("click", () => {
  try {
    show(JSON.parse((document.getElementById("tg-verify-text") as HTMLTextAreaElement).value));
  } catch {
    fail("That is not a JSON draw record.");
  }
});
arrival.addEventListener("input", place);
