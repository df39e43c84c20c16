/**
 * A wide round's numbering records (sequencer.ts): each chunk of a round after the first has one,
 * written by the round's counts commit with the chunk's numbers; the chunk lands once that commit
 * did, checked against its record, which it deletes. So a chunk cut short (a crash, a commit the
 * store lost) is finished from its record, each arrival numbered once, and the next round need not
 * wait for the chunks of the last. It only writes numbers already given.
 */
import { getAll } from "../store/get_all.ts";
import { keys } from "../store/keys.ts";
import type { QueueContext } from "./context.ts";
import type { Visitor } from "./types.ts";

/**
 * A numbering record younger than this may be another sequencer's round in flight, left to it.
 * A takeover is safe at any age (the chunk's own commit then fails its check); this only spares
 * the work twice. A chunk lands within a round trip, and a process restarted after a crash
 * finishes what it left at its first tick (tests/crash_test.ts).
 */
const FRESH_MS = 1000;
/** Arrivals a finishing commit writes, each checked (KV allows 100 checks a commit). */
const FINISH_CHUNK = 90;

/**
 * The numbering of one chunk of a wide round, flat, five numbers an arrival (about 30 bytes, some 9
 * KB a chunk, under KV's 64 KiB a value): its arrival key's time after `base`,
 * its instance as an index into `inst` and its counter; its arrival number; 1 when it joined the
 * pre-queue's window (of round `round`), else 0.
 */
export interface Numbering {
  by: string;
  at: number;
  inst: string[];
  base: number;
  round: number;
  entries: number[];
}

/** Notes arrival `key` (numbered `seq`, a window join of round `round` unless 0) in `record`. */
export function noteNumbered(record: Numbering, key: Deno.KvKey, seq: number, round: number) {
  const [, , ms, inst, k] = key as [string, string, number, string, number];
  if (!record.inst.includes(inst)) record.inst.push(inst);
  if (round) record.round = round;
  record.entries.push(ms - record.base, record.inst.indexOf(inst), k, seq, round ? 1 : 0);
}

/**
 * Writes a numbered arrival into `op`: its record with its number (and round), its line entry
 * unless a window join (the draw places those), its arrival entry taken out. Its deadline entry
 * stays as the join wrote it (nothing reads its value): three mutations.
 */
export function writeNumbered(
  op: Deno.AtomicOperation,
  q: string,
  e: Deno.KvEntry<Visitor>,
  seq: number,
  round: number,
): void {
  const { mark: _, ...rest } = e.value;
  const v: Visitor = { ...rest, seq };
  if (round) v.round = round;
  op.set(keys.visitor(q, v.id), v).delete(e.key);
  if (!round) op.set(keys.fifo(q, seq), v.id);
}

/**
 * Finishes a wide round cut short (see the header): takes its record over, so its own chunks can
 * no longer land, writes each arrival of it still unnumbered (checked: one landed meanwhile is
 * left), then deletes the record. One finishing already (the takeover lost) is left to it.
 */
async function finish(ctx: QueueContext, q: string, found: Deno.KvEntry<Numbering>) {
  const took = { ...found.value, by: `${ctx.instance}/finish`, at: ctx.now() };
  const res = await ctx.kv.atomic().check(found).set(found.key, took).commit();
  if (!res.ok) return;
  const guard = { key: found.key, versionstamp: res.versionstamp };
  const { inst, base, round, entries } = found.value;
  const parts: Promise<boolean>[] = [];
  for (let i = 0; i < entries.length; i += 5 * FINISH_CHUNK) {
    const part = entries.slice(i, i + 5 * FINISH_CHUNK);
    parts.push((async () => {
      const ks: Deno.KvKey[] = [];
      for (let j = 0; j < part.length; j += 5) {
        ks.push(keys.arrival(q, base + part[j], inst[part[j + 1]], part[j + 2]));
      }
      const op = ctx.kv.atomic().check(guard);
      (await getAll<Visitor>(ctx.kv, ks)).forEach((e, j) => {
        const [seq, window] = [part[5 * j + 3], part[5 * j + 4]];
        if (e.value) {
          writeNumbered(op.check(e), q, e as Deno.KvEntry<Visitor>, seq, window && round);
        }
      });
      return (await op.commit()).ok;
    })());
  }
  // The parts leave the record alone, so they land side by side; a lost one is finished again.
  if ((await Promise.all(parts)).every(Boolean)) {
    await ctx.kv.atomic().check(guard).delete(found.key).commit();
  }
}

/**
 * What numbering records read afresh say (chunks of wide rounds not written yet): another
 * instance's round in flight ("stop": left to it), or chunks cut short ("finished" here, then read
 * again; this process's own chunks have all settled before such a read). Null when none.
 */
export async function otherRounds(
  ctx: QueueContext,
  q: string,
  found: Deno.KvEntry<Numbering>[],
): Promise<"stop" | "finished" | null> {
  if (found.length === 0) return null;
  const mine = (e: Deno.KvEntry<Numbering>) => e.value.by.startsWith(`${ctx.instance}/`);
  if (found.some((e) => !mine(e) && ctx.now() - e.value.at < FRESH_MS)) return "stop";
  await Promise.all(found.map((e) => finish(ctx, q, e)));
  return "finished";
}

/**
 * Lands a chunk of a wide round, checked against the record its counts commit wrote (`stamp`),
 * which it deletes. One that failed (the store, or its record taken over) is finished from its
 * record at once (the counts already hold it), unless another sequencer took it over.
 */
export async function landChunk(ctx: QueueContext, by: string, { op, key, stamp }: Chunk) {
  const guard = { key, versionstamp: stamp };
  const landed = await op.check(guard).delete(key).commit().catch(() => null);
  if (landed?.ok) return;
  const found = await ctx.kv.get<Numbering>(key);
  if (found.value?.by === by) await finish(ctx, key[1] as string, found as Deno.KvEntry<Numbering>);
}

/** A chunk of a wide round: its commit, the key of its record and the versionstamp it has. */
export interface Chunk {
  op: Deno.AtomicOperation;
  key: Deno.KvKey;
  stamp: string;
}
