/**
 * Deletes the entries `selector` lists (up to `limit`), except those `keep` spares, 500 per
 * atomic op (the limit of one op is 1000 mutations); returns how many went. Not atomic as a whole:
 * callers only use it where a repeat after a crash is harmless.
 */
export async function deleteListed(
  kv: Deno.Kv,
  selector: Deno.KvListSelector,
  opts: { limit?: number; keep?: (key: Deno.KvKey) => boolean } = {},
): Promise<number> {
  let op = kv.atomic();
  let pending = 0, total = 0;
  for await (const e of kv.list(selector, { limit: opts.limit })) {
    if (opts.keep?.(e.key)) continue;
    op.delete(e.key);
    total++;
    if (++pending === 500) {
      await op.commit();
      op = kv.atomic();
      pending = 0;
    }
  }
  if (pending) await op.commit();
  return total;
}
