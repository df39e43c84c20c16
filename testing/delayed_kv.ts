/**
 * A real `Deno.Kv` seen from far away: every read waits `readMs` and every commit `commitMs`
 * before it reaches the store, as a remote primary region's round trip would make it wait. The
 * data and the checks are the real KV's; only time is added. It also counts what an instance
 * asked of the store (reads, commits, commits that lost a check, lock errors), and can run a
 * hook before each commit (a competing writer, for tests of a commit that keeps losing).
 */

/** What one wrapped handle asked of the store. */
export class KvTally {
  reads = 0;
  commits = 0;
  /** Commits that lost a check (`ok: false`). */
  lost = 0;
  /** Commits that threw (a locked file, a closed store). */
  failed = 0;
  mutations = 0;
  /** Commits and lost commits by the kind `Delays.kind` gave them. */
  readonly byKind = new Map<string, { commits: number; lost: number }>();

  /** Adds another tally's figures to this one. */
  add(o: KvTally): void {
    this.reads += o.reads;
    this.commits += o.commits;
    this.lost += o.lost;
    this.failed += o.failed;
    this.mutations += o.mutations;
    for (const [k, v] of o.byKind) this.#kind(k, v.commits, v.lost);
  }

  #kind(k: string, commits: number, lost: number): void {
    const t = this.byKind.get(k) ?? { commits: 0, lost: 0 };
    t.commits += commits;
    t.lost += lost;
    this.byKind.set(k, t);
  }

  /** Counts one commit of kind `k`. */
  note(k: string, lost: boolean): void {
    this.#kind(k, 1, lost ? 1 : 0);
  }
}

/** How the wrapper delays, and what it runs before each commit. */
export interface Delays {
  readMs: number;
  commitMs: number;
  /** How long a commit's answer takes back after it landed (absent: none). */
  replyMs?: number;
  /** Runs before each read reaches the store (after its delay). */
  beforeRead?: () => Promise<void>;
  /** Runs before each atomic commit reaches the store (after its delay). */
  beforeCommit?: (written: Deno.KvKey[]) => Promise<void>;
  /** Names what a commit does from the keys it writes (for the per-kind tally). */
  kind?: (keys: Deno.KvKey[]) => string;
}

const sleep = (ms: number) => ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve();

/** Wraps `kv`: reads and commits wait as `delays` says; `tally` counts them. */
export function delayedKv(kv: Deno.Kv, delays: Delays, tally = new KvTally()): Deno.Kv {
  const commit = async (op: Deno.AtomicOperation, written: Deno.KvKey[]) => {
    await sleep(delays.commitMs);
    await delays.beforeCommit?.(written);
    tally.commits++;
    tally.mutations += written.length;
    try {
      const r = await op.commit();
      if (!r.ok) tally.lost++;
      if (delays.kind) tally.note(delays.kind(written), !r.ok);
      await sleep(delays.replyMs ?? 0);
      return r;
    } catch (e) {
      tally.failed++;
      throw e;
    }
  };
  const wrapOp = (op: Deno.AtomicOperation): Deno.AtomicOperation => {
    const written: Deno.KvKey[] = [];
    const proxy: Deno.AtomicOperation = new Proxy(op, {
      get(target, prop) {
        if (prop === "commit") return () => commit(target, written);
        const v = Reflect.get(target, prop, target);
        if (typeof v !== "function") return v;
        return (...args: unknown[]) => {
          if (prop === "mutate") { for (const m of args as Deno.KvMutation[]) written.push(m.key); }
          else if (prop !== "check") written.push(args[0] as Deno.KvKey);
          v.apply(target, args);
          return proxy;
        };
      },
    });
    return proxy;
  };
  const read = async <T>(f: () => Promise<T>): Promise<T> => {
    tally.reads++;
    await sleep(delays.readMs);
    await delays.beforeRead?.();
    return await f();
  };
  return new Proxy(kv, {
    get(target, prop) {
      switch (prop) {
        case "atomic":
          return () => wrapOp(target.atomic());
        case "get":
          return (key: Deno.KvKey, o?: { consistency?: Deno.KvConsistencyLevel }) =>
            read(() => target.get(key, o));
        case "getMany":
          return (ks: Deno.KvKey[], o?: { consistency?: Deno.KvConsistencyLevel }) =>
            read(() => target.getMany(ks, o));
        case "set":
          return (key: Deno.KvKey, value: unknown, o?: { expireIn?: number }) =>
            wrapOp(target.atomic()).set(key, value, o).commit();
        case "delete":
          return async (key: Deno.KvKey) => void await wrapOp(target.atomic()).delete(key).commit();
        case "list":
          return (sel: Deno.KvListSelector, o?: Deno.KvListOptions) => {
            const it = target.list(sel, o);
            // A round trip for each batch the store answers a list in (KvListOptions.batchSize:
            // the limit, or 100, at most 500).
            const batch = Math.min(o?.batchSize ?? o?.limit ?? 100, 500);
            let taken = 0;
            return {
              get cursor() {
                return it.cursor;
              },
              async next() {
                if (taken++ % batch === 0) return await read(() => it.next());
                return await it.next();
              },
              [Symbol.asyncIterator]() {
                return this;
              },
            };
          };
      }
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}
