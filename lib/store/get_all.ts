/**
 * Reads many keys at once: KV reads at most 10 keys a `getMany`, so longer lists go in reads of 10,
 * side by side. The engine reads visitor records, arrivals and notes this way.
 */

/** The entries of `ks`, in their order (read 10 a `getMany`, the reads side by side). */
export async function getAll<T>(kv: Deno.Kv, ks: Deno.KvKey[]): Promise<Deno.KvEntryMaybe<T>[]> {
  const reads = [];
  for (let i = 0; i < ks.length; i += 10) reads.push(kv.getMany<T[]>(ks.slice(i, i + 10)));
  return (await Promise.all(reads)).flat();
}
