/**
 * KV commits per visitor inside a real server process: the places scenario starts main.ts with
 * this file as a `--preload`, which wraps `Deno.openKv` so the store main.ts opens counts every
 * successful commit (bench/counting_kv.ts). A server runs many requests at once, so a commit is
 * labelled by what it wrote (not by the driver's phase, as the in-process counters do): a join, the
 * sequencer numbering an arrival, an admission, an entry, a check-in, a removal, a resume code, a
 * move, an e-mail request, an e-mail sent. The tally is written as JSON to
 * `TOLLGATE_COMMIT_TALLY` every second and when the process exits.
 */
import { type CommitRecorder, countingKv, type Mutation } from "../counting_kv.ts";

/** What a commit did to one visitor. */
export type CommitLabel =
  | "join"
  | "number"
  | "admit"
  | "enter"
  | "checkin"
  | "remove"
  | "code"
  | "move"
  | "mailAsk"
  | "mailSent"
  | "mailDrop"
  | "other";

/** Commits per visitor id and label, plus commits that wrote no visitor's keys. */
export interface TallyFile {
  visitors: Record<string, Partial<Record<CommitLabel, number>>>;
  shared: number;
  commits: number;
}

const state = (m: Mutation) => (m.value as { state?: string; seq?: number } | undefined);

/** The label of what `muts` (one commit) did to visitor `id`, given its record's mutation. */
function labelOf(id: string, muts: Mutation[], rec: Mutation | undefined): CommitLabel {
  if (rec) {
    if (rec.type === "delete") return "remove";
    const v = state(rec);
    const numbering = muts.some((m) => m.key[0] === "na" && m.type === "delete");
    if (v?.state === "waiting") return v.seq === 0 ? "join" : numbering ? "number" : "checkin";
    if (v?.state === "admitted") return "admit";
    // Entered from an admission deletes the admission's expiry entry; else (queue mode) it went
    // in at once at its join, one commit for all three.
    const fromHold = muts.some((m) => m.key[0] === "x" && m.type === "delete" && m.key[3] === id);
    if (v?.state === "entered") return fromHold ? "enter" : "join";
    return "other";
  }
  for (const m of muts) {
    if (m.key[0] === "resumeHolder" && m.key[2] === id && m.type === "set") {
      return (m.value as { codeHash?: string }).codeHash ? "code" : "move";
    }
  }
  const mailSet = muts.some((m) => m.key[0] === "mailSubOf" && m.type === "set");
  if (mailSet) return "mailAsk";
  if (muts.some((m) => m.key[0] === "stats" && m.key[1] === "mail")) return "mailSent";
  if (muts.some((m) => m.key[0] === "mailSubOf")) return "mailDrop";
  return "other";
}

/** The visitor a key belongs to, when it names one. */
function ownerOf(m: Mutation): string | null {
  switch (m.key[0]) {
    case "v":
    case "resumeHolder":
    case "mailSubOf":
    case "nl":
      return String(m.key[2]);
    case "na":
      // An arrival entry: its value is the joining visitor's record.
      return (m.value as { id?: string } | undefined)?.id ?? null;
    default:
      return null;
  }
}

/** Counts commits per visitor by what they did. */
export class CommitTally implements CommitRecorder {
  readonly visitors = new Map<string, Partial<Record<CommitLabel, number>>>();
  shared = 0;
  commits = 0;

  /** Records one successful commit. */
  record(muts: Mutation[]): void {
    this.commits++;
    const records = new Map<string, Mutation>();
    const owners = new Set<string>();
    for (const m of muts) {
      const id = ownerOf(m);
      if (id === null) continue;
      owners.add(id);
      if (m.key[0] === "v") records.set(id, m);
    }
    if (owners.size === 0) return void this.shared++;
    for (const id of owners) {
      const label = labelOf(id, muts, records.get(id));
      let t = this.visitors.get(id);
      if (!t) this.visitors.set(id, t = {});
      t[label] = (t[label] ?? 0) + 1;
    }
  }

  /** The tally as written to the file. */
  toJSON(): TallyFile {
    return {
      visitors: Object.fromEntries(this.visitors),
      shared: this.shared,
      commits: this.commits,
    };
  }
}

/** Reads a tally file a server wrote (null when there is none). */
export async function readTally(path: string): Promise<TallyFile | null> {
  try {
    return JSON.parse(await Deno.readTextFile(path));
  } catch {
    return null;
  }
}

// As a preload: count the commits of the store the server opens.
const out = Deno.env.get("TOLLGATE_COMMIT_TALLY");
if (out) {
  const tally = new CommitTally();
  const open = Deno.openKv.bind(Deno);
  Object.defineProperty(Deno, "openKv", {
    value: async (path?: string) => countingKv(await open(path), tally),
    configurable: true,
    writable: true,
  });
  const write = () => Deno.writeTextFileSync(out, JSON.stringify(tally));
  const timer = setInterval(write, 1000);
  Deno.unrefTimer(timer);
  globalThis.addEventListener("unload", write);
}
