/**
 * A real Deno KV (usually `:memory:`) behind a switch that makes it unreachable: `fail("throw")`
 * makes every call reject at once (a store that refuses connections), `fail("hang")` makes every
 * call wait (a store that stopped answering); `recover()` passes calls through again and rejects
 * the calls that hung, as a reset connection does. The data underneath is never touched, so a
 * test sees exactly what survives an outage.
 */

/** How the store fails. */
export type KvFailure = "throw" | "hang" | null;

/** A KV that can be made unreachable. */
export interface FailingKv {
  kv: Deno.Kv;
  fail(how: Exclude<KvFailure, null>): void;
  recover(): void;
  /** Calls refused or held while failing. */
  readonly refused: number;
}

/** Wraps `inner` (its `close()` closes `inner`). */
export function failingKv(inner: Deno.Kv): FailingKv {
  let how: KvFailure = null;
  let refused = 0;
  let hung: ((e: Error) => void)[] = [];
  const unreachable = <T>(): Promise<T> => {
    refused++;
    if (how === "throw") return Promise.reject(new TypeError("kv unreachable: connection refused"));
    return new Promise<T>((_, reject) => hung.push(reject));
  };
  const guard = <A extends unknown[], R>(f: (...a: A) => Promise<R>) => (...a: A): Promise<R> =>
    how ? unreachable<R>() : f(...a);

  const atomic = () => {
    const op = inner.atomic();
    const proxy: Deno.AtomicOperation = new Proxy(op, {
      get(target, prop) {
        const v = Reflect.get(target, prop, target);
        if (prop === "commit") return guard(() => target.commit());
        if (typeof v !== "function") return v;
        // The builder's own methods return the builder: keep returning this proxy.
        return (...args: unknown[]) => {
          const out = v.apply(target, args);
          return out === target ? proxy : out;
        };
      },
    });
    return proxy;
  };

  const list = <T>(selector: Deno.KvListSelector, options?: Deno.KvListOptions) => {
    if (!how) return inner.list<T>(selector, options);
    const fail = unreachable<IteratorResult<Deno.KvEntry<T>>>();
    const it = {
      next: () => fail,
      [Symbol.asyncIterator]() {
        return it;
      },
      cursor: "",
    };
    return it as unknown as Deno.KvListIterator<T>;
  };

  const kv = new Proxy(inner, {
    get(target, prop) {
      switch (prop) {
        case "get":
          return guard((k: Deno.KvKey, o?: { consistency?: Deno.KvConsistencyLevel }) =>
            target.get(k, o)
          );
        case "getMany":
          return guard((k: Deno.KvKey[], o?: { consistency?: Deno.KvConsistencyLevel }) =>
            target.getMany(k, o)
          );
        case "set":
          return guard((k: Deno.KvKey, v: unknown, o?: { expireIn?: number }) =>
            target.set(k, v, o)
          );
        case "delete":
          return guard((k: Deno.KvKey) => target.delete(k));
        case "atomic":
          return atomic;
        case "list":
          return list;
      }
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });

  return {
    kv,
    fail(h) {
      how = h;
    },
    recover() {
      how = null;
      const waiting = hung;
      hung = [];
      for (const reject of waiting) reject(new TypeError("kv connection reset"));
    },
    get refused() {
      return refused;
    },
  };
}
