/**
 * The opening draw's places, kept apart from the visitor records: one compact table per round
 * (place by arrival number, 4 bytes each, in chunks under the list's hash) and a small pointer
 * record that says the table is complete. The draw writes these and the line entries only, not
 * every participant's record (that was half the draw's writes); a participant's record keeps its
 * arrival number as `seq` and its `round` until its next write, and every reader that needs its
 * place reads the record through `placeOf`, which answers the record as if moved (`seq` its
 * place, `arrival` its arrival number). The next write of the record stores it that way.
 */
import { keys } from "../store/keys.ts";
import type { Visitor } from "./types.ts";

/** Arrival numbers per stored chunk (4 bytes each, under the 64 KiB value limit). */
const PLACE_CHUNK = 16_000;

/** Where a round's places are: its window's arrival numbers and the table's chunks. */
export interface Placed {
  /** First arrival number of the window. */
  preFrom: number;
  /** First place (the arrival number after the window). */
  cutoff: number;
  listHash: string;
  chunks: number;
}

interface Table extends Placed {
  /** By `arrival - preFrom`: 1 + the place's offset from `cutoff`; 0 when not in the list. */
  places: Uint32Array;
}

/** Complete tables, per KV handle, queue and round: they never change once stored. */
const tables = new WeakMap<Deno.Kv, Map<string, Table>>();

/** The table of places for a drawn `order` (arrival numbers, place 1 first). */
function tableOf(p: Placed, order: readonly number[]): Uint32Array {
  const places = new Uint32Array(p.cutoff - p.preFrom);
  order.forEach((a, i) => places[a - p.preFrom] = i + 1);
  return places;
}

/**
 * Writes the table of a drawn order in chunks (plain writes: the same order always gives the same
 * bytes, so a rerun rewrites them unchanged); returns where it is, for the pointer record.
 */
export async function storePlaces(
  kv: Deno.Kv,
  q: string,
  p: Omit<Placed, "chunks">,
  order: readonly number[],
): Promise<Placed> {
  const places = tableOf({ ...p, chunks: 0 }, order);
  const chunks = Math.max(1, Math.ceil(places.length / PLACE_CHUNK));
  const writes = [];
  for (let i = 0; i < chunks; i++) {
    const part = places.subarray(i * PLACE_CHUNK, (i + 1) * PLACE_CHUNK);
    const bytes = new Uint8Array(part.length * 4);
    const dv = new DataView(bytes.buffer);
    part.forEach((x, j) => dv.setUint32(j * 4, x));
    writes.push(kv.set(keys.drawPlaces(q, p.listHash, i), bytes));
  }
  await Promise.all(writes);
  return { ...p, chunks };
}

/** Reads a round's table back (10 chunks a read). */
async function readTable(kv: Deno.Kv, q: string, p: Placed): Promise<Table> {
  const places = new Uint32Array(p.cutoff - p.preFrom);
  const ks = Array.from({ length: p.chunks }, (_, i) => keys.drawPlaces(q, p.listHash, i));
  for (let i = 0; i < ks.length; i += 10) {
    const got = await kv.getMany<Uint8Array[]>(ks.slice(i, i + 10));
    got.forEach((g, j) => {
      if (!g.value) throw new Error(`draw places chunk ${i + j} of queue "${q}" is missing`);
      const dv = new DataView(g.value.buffer, g.value.byteOffset, g.value.byteLength);
      const at = (i + j) * PLACE_CHUNK;
      for (let k = 0; k * 4 < g.value.length; k++) places[at + k] = dv.getUint32(k * 4);
    });
  }
  return { ...p, places };
}

/** The record as the draw placed it: `seq` its place, `arrival` its arrival number, no round. */
function moved(v: Visitor, t: Table): Visitor {
  const i = t.places[v.seq - t.preFrom];
  const { round: _, ...rest } = v;
  // Not in the list (it cannot be: the list holds everyone waiting from the window), so it keeps
  // its number, behind nobody: left as it is, only marked as placed.
  if (!i) return { ...rest, arrival: v.seq };
  return { ...rest, seq: t.cutoff + i - 1, arrival: v.seq };
}

/** A record read through the draw's places. */
export interface PlacedRecord {
  v: Visitor;
  /**
   * The pointer record, read and still absent, when `v` is a participant its draw has not placed
   * yet: a write that removes it checks this, so it cannot miss a line entry the draw writes
   * meanwhile. Null otherwise.
   */
  unplaced: Deno.KvEntryMaybe<Placed> | null;
}

/**
 * Reads `v` through its round's places: as moved when its draw stored them, as it is otherwise
 * (any record that is no unplaced participant, or one whose draw has not placed it yet).
 * One KV read per call until the round's table is cached, then none; none either when `now`
 * (given by readers that write no removal) is before the round's opening, when no draw can have
 * run (the window's check-ins).
 */
export async function placeOf(
  kv: Deno.Kv,
  q: string,
  v: Visitor,
  now?: number,
): Promise<PlacedRecord> {
  if (v.round === undefined || v.state !== "waiting") return { v, unplaced: null };
  if (now !== undefined && now < v.round) {
    return { v, unplaced: { key: keys.drawPlaced(q, v.round), value: null, versionstamp: null } };
  }
  let byQueue = tables.get(kv);
  if (!byQueue) tables.set(kv, byQueue = new Map());
  const id = `${q}\u0000${v.round}`;
  let t = byQueue.get(id);
  if (!t) {
    const ptr = await kv.get<Placed>(keys.drawPlaced(q, v.round));
    if (!ptr.value) return { v, unplaced: ptr };
    t = await readTable(kv, q, ptr.value);
    // Bounded: a queue has one round at a time, and the names come from stored records.
    if (byQueue.size >= 256) byQueue.clear();
    byQueue.set(id, t);
  }
  return { v: moved(v, t), unplaced: null };
}

/** `placeOf` for a KV entry: the same entry (key, versionstamp) with the record as placed. */
export async function placedEntry(
  kv: Deno.Kv,
  q: string,
  e: Deno.KvEntry<Visitor>,
  now?: number,
): Promise<Deno.KvEntry<Visitor> & { unplaced: Deno.KvEntryMaybe<Placed> | null }> {
  const { v, unplaced } = await placeOf(kv, q, e.value, now);
  return { ...e, value: v, unplaced };
}
