/// <reference lib="dom" />
/**
 * Priority codes just issued, shown this once: the service keeps only a keyed hash of each, so
 * they can never be shown again. One copy button for all of them, and a CSV (code, link, lane,
 * uses, expiry, label) built here in the browser, so the codes travel no further than this page.
 * They stay in this page's memory until the operator hides them (switching tabs or queues does not
 * lose them), and leaving or reloading the page asks first while any are shown.
 */
import { signal } from "@preact/signals";
import { basePath } from "../api.ts";
import { CopyButton, localTime } from "../ui.tsx";
import type { CodeRecord } from "./admission_codes.tsx";

/** The link that takes a visitor with `code` into the line of `queue`. */
export function codeLink(queue: string, code: string): string {
  const q = new URLSearchParams({ queue, code });
  return `${location.origin}${basePath()}/wait?${q}`;
}

/** Codes as one issue answered them: the codes and their records, in the same order. */
export interface Issued {
  /** Tells batches apart (one page may issue several). */
  id: number;
  queue: string;
  codes: string[];
  records: CodeRecord[];
}

/** The batches issued in this page and not yet hidden, newest first. */
export const issuedBatches = signal<Issued[]>([]);

addEventListener("beforeunload", (e) => {
  if (issuedBatches.value.length) e.preventDefault();
});

let batches = 0;

/** Keeps a new batch on screen. */
export function keepIssued(batch: Omit<Issued, "id">) {
  issuedBatches.value = [{ id: ++batches, ...batch }, ...issuedBatches.value];
}

/** One CSV cell: quoted, and a leading =, +, - or @ defused (a spreadsheet would run it). */
function cell(v: string | number): string {
  const s = String(v);
  const safe = /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
  return `"${safe.replace(/"/g, '""')}"`;
}

/** The issued codes as CSV text, a header line first. */
export function codesCsv(issued: Issued): string {
  const head = ["code", "link", "lane", "uses", "expires", "label"];
  const lines = issued.codes.map((code, i) => {
    const r = issued.records[i];
    const expires = r?.expiresAt ? new Date(r.expiresAt).toISOString() : "";
    return [
      code,
      codeLink(issued.queue, code),
      r?.lane ?? "",
      r?.maxUses ?? "",
      expires,
      r?.label ?? "",
    ]
      .map(cell).join(",");
  });
  return [head.join(","), ...lines].join("\r\n") + "\r\n";
}

/** The batches of `queue` still shown. */
export function IssuedFor({ queue }: { queue: string }) {
  const mine = issuedBatches.value.filter((b) => b.queue === queue);
  const hide = (b: Issued) => issuedBatches.value = issuedBatches.value.filter((x) => x !== b);
  return <>{mine.map((b) => <IssuedCodes key={b.id} issued={b} onHide={() => hide(b)} />)}</>;
}

/** The codes of one issue, this once, with a copy button, a CSV download and a hide button. */
function IssuedCodes({ issued, onHide }: { issued: Issued; onHide: () => void }) {
  const text = issued.codes.join("\n");
  const first = issued.records[0];
  const n = issued.codes.length;
  const csv = `data:text/csv;charset=utf-8,${encodeURIComponent(codesCsv(issued))}`;
  const stamp = new Date().toISOString().slice(0, 16).replace(/[:T]/g, "-");
  return (
    <div class="codes-once" role="region" aria-labelledby={`codes-once-${issued.id}`}>
      <h4 id={`codes-once-${issued.id}`}>
        {n === 1 ? "Your new code" : `Your ${n} new codes`}
        {first ? ` for the lane ${first.lane}` : ""}
      </h4>
      <p>
        <strong>
          Copy or download them now: they are shown this once and cannot be shown again.
        </strong>{" "}
        Only a fingerprint of each is kept, so a lost code cannot be looked up: issue a new one and
        revoke the old.
        {first?.expiresAt ? ` They expire ${localTime(first.expiresAt)}.` : ""}
      </p>
      <pre class="codes-list" data-copy={text} aria-label="The new codes" tabIndex={0}>{text}</pre>
      <div class="actions">
        <CopyButton text={text} label={n === 1 ? "Copy the code" : "Copy the codes"} />
        <a href={csv} download={`priority-codes-${issued.queue}-${stamp}.csv`}>
          Download as CSV
        </a>
        <button type="button" onClick={onHide}>I saved them: hide</button>
      </div>
    </div>
  );
}
