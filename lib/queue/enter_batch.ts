/**
 * Group commits of admitted visitors entering (holding -> entered), see batches.ts: each checks
 * only its visitor's record, the counts take the enters in later (enters.ts says why).
 */
import { GroupCommits } from "./batches.ts";
import { addEnters } from "./enters.ts";
import type { QueueContext } from "./context.ts";
import { enterAdmitted } from "./records.ts";
import { type Counts, EMPTY_COUNTS, type Visitor } from "./types.ts";

interface PendingEnter {
  q: string;
  entry: Deno.KvEntry<Visitor>;
  resolve: (v: Visitor | null) => void;
  reject: (e: unknown) => void;
}

/** Entries per commit: each checks its visitor record (an op allows 100 checks). */
const MAX_ENTERS = 90;

/** One checked commit of a batch; each gets null when a check lost (its caller re-reads). */
async function commitEnters(ctx: QueueContext, batch: PendingEnter[]): Promise<void> {
  const op = ctx.kv.atomic();
  const now = ctx.now();
  // What the enters change in the counts (holding to entered) goes to each queue's sum.
  const counts = new Map<string, Counts>();
  const seen = new Set<string>();
  const out = batch.map(({ q, entry }) => {
    // The same visitor twice (two tabs): the first enters, the second re-reads and sees it.
    if (seen.has(`${q}\n${entry.value.id}`)) return null;
    seen.add(`${q}\n${entry.value.id}`);
    const c = counts.get(q) ?? { ...EMPTY_COUNTS };
    counts.set(q, c);
    op.check(entry);
    return enterAdmitted(op, q, entry.value, c, now, ctx.config.ACCESS_TOKEN_TTL_SECONDS);
  });
  for (const [q, c] of counts) addEnters(op, q, c.entered);
  const ok = (await op.commit()).ok;
  batch.forEach((p, i) => p.resolve(ok ? out[i] : null));
}

const batchers = new WeakMap<QueueContext, GroupCommits<PendingEnter>>();

/** Moves an admitted visitor to entered in this instance's next enter batch; null on a lost check. */
export function enterInBatch(
  ctx: QueueContext,
  q: string,
  entry: Deno.KvEntry<Visitor>,
): Promise<Visitor | null> {
  let b = batchers.get(ctx);
  if (!b) {
    const commit = (batch: PendingEnter[]) => commitEnters(ctx, batch);
    b = new GroupCommits({ inFlight: 1, full: MAX_ENTERS, commit });
    batchers.set(ctx, b);
  }
  return new Promise((resolve, reject) => b.add({ q, entry, resolve, reject }));
}
