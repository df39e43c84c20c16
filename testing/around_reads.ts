/** A KV handle whose point reads (`get`, `getMany`) pass through a hook, for tests. */

/** Runs a read; the hook calls it (and may wait or count around it). */
export type Read = () => Promise<unknown>;

/**
 * `kv` with every `get` and `getMany` passed to `around` with the read's (first) key: the hook
 * runs the read and returns its result. Everything else goes to `kv` as it is.
 */
export function aroundReads(
  kv: Deno.Kv,
  around: (first: Deno.KvKey, read: Read) => Promise<unknown>,
): Deno.Kv {
  return new Proxy(kv, {
    get(target, prop) {
      if (prop === "get" || prop === "getMany") {
        return (key: Deno.KvKey | Deno.KvKey[], o?: { consistency?: Deno.KvConsistencyLevel }) => {
          const first = (prop === "get" ? key : key[0]) as Deno.KvKey;
          // deno-lint-ignore no-explicit-any
          return around(first, () => (target as any)[prop](key, o));
        };
      }
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}
