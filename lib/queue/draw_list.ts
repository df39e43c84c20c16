/**
 * The opening draw's fixed list of participants as stored: arrival numbers in chunks under the
 * list's hash (offsets from the window's first number, 4 bytes big-endian each), so a rerun of the
 * draw and the public record read back exactly the list that was hashed; and that public record.
 */
import { keys } from "../store/keys.ts";
import type { QueueContext } from "./context.ts";
import { drawOrder, listHashOf, type PublicDraw } from "./draw_scheme.ts";
import type { DrawRecord } from "./prequeue.ts";

/** Arrival numbers per stored list chunk (4 bytes each, under the 64 KiB value limit). */
const LIST_CHUNK = 16_000;

/** Stores the list in chunks under its hash; returns the hash and the number of chunks. */
export async function storeList(ctx: QueueContext, q: string, rec: DrawRecord, list: number[]) {
  const hash = listHashOf(list);
  let chunks = 0;
  for (let i = 0; i < list.length || i === 0; i += LIST_CHUNK, chunks++) {
    const part = list.slice(i, i + LIST_CHUNK);
    const bytes = new Uint8Array(part.length * 4);
    const dv = new DataView(bytes.buffer);
    part.forEach((a, j) => dv.setUint32(j * 4, a - rec.preFrom));
    await ctx.kv.set(keys.drawList(q, hash, chunks), bytes);
  }
  return { hash, chunks };
}

/** Reads a fixed list back from its chunks. */
export async function readList(ctx: QueueContext, q: string, rec: DrawRecord): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < (rec.chunks ?? 0); i++) {
    const b = (await ctx.kv.get<Uint8Array>(keys.drawList(q, rec.listHash!, i))).value;
    if (!b) throw new Error(`draw list chunk ${i} of queue "${q}" is missing`);
    const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
    for (let j = 0; j < b.length; j += 4) out.push(rec.preFrom + dv.getUint32(j));
  }
  return out;
}

/** The record as anyone may see it once published: no opening time, no internal numbers. */
export async function publicDraw(
  ctx: QueueContext,
  q: string,
  rec: DrawRecord,
): Promise<PublicDraw> {
  const out: PublicDraw = {
    scheme: rec.scheme,
    queue: q,
    state: rec.state,
    commitment: rec.commitment,
    committedAt: rec.committedAt,
  };
  if (rec.state === "committed") return out;
  const list = await readList(ctx, q, rec);
  return {
    ...out,
    count: rec.count,
    listHash: rec.listHash,
    seed: rec.seed,
    list,
    order: drawOrder(rec.seed!, list, rec.listHash!),
    drawnAt: rec.drawnAt,
  };
}
