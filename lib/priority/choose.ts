/**
 * Which waiters of each priority lane a tick (or a force-admit) takes: every line's head is read
 * (the main line and each lane slot ever used, lib/priority/line.ts), the second's admissions are
 * split by the lanes' shares and strict priority (`splitAdmissions`), and each lane gets its
 * head's ids in arrival order. The caller admits them (passing over silent ones) and gives the
 * main line the rest. A lane removed while people wait in it drains as a lane with the smallest
 * share (one a second, and what the main line leaves), so nobody in it is stranded.
 */
import { keys } from "../store/keys.ts";
import { type Lane, MAIN_LINE, splitAdmissions } from "./lanes.ts";
import { readLanes } from "./store.ts";
import { RETURN_SLOT } from "./line.ts";

/** One lane's part of a round: its slot, up to `take` admissions, from `ids` in order. */
export interface LanePick {
  slot: number;
  name: string;
  take: number;
  ids: string[];
}

/** Waiters read past a round's want per line, so a few silent ones cost no second read. */
const EXTRA = 40;

/**
 * The lanes' parts of `want` admissions of `q` (empty when no lane was ever used: `laneNext` of
 * the counts names the lane slots with a line). `skip`: ids already handled this round.
 */
export async function chooseByLane(
  kv: Deno.Kv,
  q: string,
  laneNext: Record<string, number>,
  want: number,
  skip: Set<string>,
): Promise<LanePick[]> {
  const used = Object.keys(laneNext).map(Number);
  if (used.length === 0 || want <= 0) return [];
  const rec = await readLanes(kv, q);
  const bySlot = new Map(Object.entries(rec.slots).map(([name, slot]) => [slot, name]));
  const current = new Set(rec.lanes.map((l) => l.name));
  // Visitors back from being away when their turn came go first (strict, before every lane).
  const returning: Lane[] = used.includes(RETURN_SLOT)
    ? [{ name: `~${RETURN_SLOT}`, strict: true }]
    : [];
  // Removed lanes with a line still: the smallest share, after the current lanes.
  const orphans: Lane[] = used.filter((s) => s !== RETURN_SLOT && !current.has(bySlot.get(s) ?? ""))
    .map((s) => ({ name: `~${s}`, share: Number.MIN_VALUE }));
  const lanes = [...returning, ...rec.lanes, ...orphans];
  const slotOfName = (name: string) =>
    name.startsWith("~") ? Number(name.slice(1)) : rec.slots[name];
  const limit = want + skip.size + EXTRA;
  const heads = new Map<string, string[]>();
  await Promise.all([MAIN_LINE, ...lanes.map((l) => l.name)].map(async (name) => {
    const ids: string[] = [];
    const slot = name === MAIN_LINE ? 0 : slotOfName(name);
    for await (const e of kv.list<string>(keys.fifoLine(q, slot), { limit })) {
      if (!skip.has(e.value)) ids.push(e.value);
    }
    heads.set(name, ids);
  }));
  const waiting = Object.fromEntries([...heads].map(([name, ids]) => [name, ids.length]));
  const split = splitAdmissions(lanes, want, waiting);
  return lanes.filter((l) => (split[l.name] ?? 0) > 0).map((l) => ({
    slot: slotOfName(l.name),
    name: l.name,
    take: split[l.name],
    ids: heads.get(l.name)!,
  }));
}
