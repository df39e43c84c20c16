/**
 * A `Deno.Kv` wrapper that counts successful writes per visitor: every atomic commit (and every
 * plain `set`/`delete`) is attributed to the visitors whose keys it mutates, labelled by what it
 * did to the visitor record. Key layout from lib/store/keys.ts: `["v", q, id]` is the record,
 * `["w", q, seq]`, `["r", q, rkey, id]`, `["d", q, ms, id]`, `["x", q, ms, id]`, `["g", q, ms, seq]`
 * are its indexes.
 */

/** What a commit did to one visitor. */
export type WriteLabel = "join" | "admit" | "enter" | "checkin" | "remove" | "other";

/** Per-visitor write tally. */
export interface VisitorWrites {
  commits: Record<WriteLabel, number>;
  mutations: Record<WriteLabel, number>;
}

/** The driver's current activity; commits are labelled with it. */
export type Phase = "join" | "tick" | "status" | "setup";

/** One mutation of a successful commit, as the wrapper saw it. */
export interface Mutation {
  key: Deno.KvKey;
  type: "set" | "delete" | "sum" | "min" | "max";
  value?: unknown;
}

const emptyTally = (): Record<WriteLabel, number> => ({
  join: 0,
  admit: 0,
  enter: 0,
  checkin: 0,
  remove: 0,
  other: 0,
});

/** Counting state shared by the wrapper and the driver. */
export class WriteCounter {
  phase: Phase = "setup";
  readonly visitors = new Map<string, VisitorWrites>();
  /** Arrival number -> visitor id, learned from the records written. */
  readonly seqToId = new Map<number, string>();
  commits = 0;
  mutations = 0;
  /** Commits that touched no visitor (counters, settings, schema). */
  sharedCommits = 0;

  #label(record: Mutation | undefined): WriteLabel {
    if (this.phase === "join") return "join";
    if (!record) return "other";
    if (record.type === "delete") return "remove";
    const state = (record.value as { state?: string } | undefined)?.state;
    if (state === "waiting") return "checkin";
    if (this.phase === "tick") return "admit";
    if (this.phase === "status") return "enter";
    return "other";
  }

  /** Records one successful commit. */
  record(muts: Mutation[]): void {
    this.commits++;
    this.mutations += muts.length;
    const records = new Map<string, Mutation>();
    for (const m of muts) {
      if (m.key[0] !== "v") continue;
      const id = String(m.key[2]);
      records.set(id, m);
      const v = m.value as { seq?: number } | undefined;
      if (m.type === "set" && typeof v?.seq === "number") this.seqToId.set(v.seq, id);
    }
    const perId = new Map<string, number>();
    for (const m of muts) {
      const id = this.#owner(m.key);
      if (id !== null) perId.set(id, (perId.get(id) ?? 0) + 1);
    }
    if (perId.size === 0) this.sharedCommits++;
    for (const [id, n] of perId) {
      let w = this.visitors.get(id);
      if (!w) this.visitors.set(id, w = { commits: emptyTally(), mutations: emptyTally() });
      const label = this.#label(records.get(id));
      w.commits[label]++;
      w.mutations[label] += n;
    }
  }

  #owner(key: Deno.KvKey): string | null {
    switch (key[0]) {
      case "v":
        return String(key[2]);
      case "r":
      case "d":
      case "x":
        return String(key[3]);
      case "w":
        return this.seqToId.get(Number(key[2])) ?? null;
      case "g":
        return this.seqToId.get(Number(key[3])) ?? null;
      default:
        return null;
    }
  }
}

/** Whatever takes the mutations of each successful commit (a `WriteCounter`, or another tally). */
export interface CommitRecorder {
  record(muts: Mutation[]): void;
}

/** Wraps `kv` so that every successful write is reported to `counter`. */
export function countingKv(kv: Deno.Kv, counter: CommitRecorder): Deno.Kv {
  const wrapOp = (op: Deno.AtomicOperation): Deno.AtomicOperation => {
    const muts: Mutation[] = [];
    const proxy: Deno.AtomicOperation = new Proxy(op, {
      get(target, prop) {
        const chain = (f: (...a: never[]) => void) => (...args: never[]) => {
          f(...args);
          return proxy;
        };
        switch (prop) {
          case "set":
            return chain((key: Deno.KvKey, value: unknown, opts?: { expireIn?: number }) => {
              muts.push({ key, type: "set", value });
              target.set(key, value, opts);
            });
          case "delete":
            return chain((key: Deno.KvKey) => {
              muts.push({ key, type: "delete" });
              target.delete(key);
            });
          case "sum":
          case "min":
          case "max":
            return chain((key: Deno.KvKey, n: bigint) => {
              muts.push({ key, type: prop });
              target[prop](key, n);
            });
          case "mutate":
            return chain((...ms: Deno.KvMutation[]) => {
              for (const m of ms) {
                const type = m.type === "delete" ? "delete" : m.type === "set" ? "set" : "sum";
                muts.push({ key: m.key, type, value: "value" in m ? m.value : undefined });
              }
              target.mutate(...ms);
            });
          case "check":
            return chain((...checks: Deno.AtomicCheck[]) => void target.check(...checks));
          case "commit":
            return async () => {
              const r = await target.commit();
              if (r.ok) counter.record(muts);
              return r;
            };
          default: {
            const v = Reflect.get(target, prop, target);
            return typeof v === "function" ? v.bind(target) : v;
          }
        }
      },
    });
    return proxy;
  };
  return new Proxy(kv, {
    get(target, prop) {
      if (prop === "atomic") return () => wrapOp(target.atomic());
      if (prop === "set") {
        return (key: Deno.KvKey, value: unknown, opts?: { expireIn?: number }) =>
          wrapOp(target.atomic()).set(key, value, opts).commit();
      }
      if (prop === "delete") {
        return async (key: Deno.KvKey) => void await wrapOp(target.atomic()).delete(key).commit();
      }
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}
