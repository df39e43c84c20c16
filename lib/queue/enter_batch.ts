import { QueueBatches } from "./batches.ts";
import { addEnters } from "./enters.ts";
import type { QueueContext } from "./context.ts";
import { enterAdmitted } from "./records.ts";
import { EMPTY_COUNTS, type Visitor } from "./types.ts";

interface PendingEnter {
  entry: Deno.KvEntry<Visitor>;
  resolve: (v: Visitor | null) => void;
  reject: (e: unknown) => void;
}

/** Entries per commit: each checks its visitor record (an op allows 100 checks). */
const MAX_ENTERS = 90;

/**
 * Group commit of admitted visitors entering: the enters that arrive while one commit is in flight
 * go together in the next. Each checks only its visitor's record: the counts take the enters in
 * later (see enters.ts), so enters neither wait for the join turn nor contend with the join
 * commits and the tick for the counts record.
 */
class EnterBatcher {
  #batches = new QueueBatches<PendingEnter>(
    (list) => list.splice(0, MAX_ENTERS),
    async (q, batch) => {
      const out = await this.#commit(q, batch);
      batch.forEach((p, i) => p.resolve(out[i]));
    },
  );

  constructor(private ctx: QueueContext) {}

  add(q: string, entry: Deno.KvEntry<Visitor>): Promise<Visitor | null> {
    return new Promise((resolve, reject) => this.#batches.add(q, { entry, resolve, reject }));
  }

  /** One checked commit of the batch; all null when a check lost (each caller re-reads). */
  async #commit(q: string, batch: PendingEnter[]): Promise<(Visitor | null)[]> {
    const ctx = this.ctx;
    const op = ctx.kv.atomic();
    const now = ctx.now();
    // What the enters change in the counts (holding to entered) goes to the sum, not the record.
    const counts = { ...EMPTY_COUNTS };
    const seen = new Set<string>();
    const out = batch.map((p) => {
      // The same visitor twice (two tabs): the first enters, the second re-reads and sees it.
      if (seen.has(p.entry.value.id)) return null;
      seen.add(p.entry.value.id);
      op.check(p.entry);
      return enterAdmitted(
        op,
        q,
        p.entry.value,
        counts,
        now,
        ctx.config.ACCESS_TOKEN_TTL_SECONDS,
      );
    });
    addEnters(op, q, counts.entered);
    return (await op.commit()).ok ? out : batch.map(() => null);
  }
}

const batchers = new WeakMap<QueueContext, EnterBatcher>();

/** Moves an admitted visitor to entered in this instance's next enter batch; null on a lost check. */
export function enterInBatch(
  ctx: QueueContext,
  q: string,
  entry: Deno.KvEntry<Visitor>,
): Promise<Visitor | null> {
  let b = batchers.get(ctx);
  if (!b) batchers.set(ctx, b = new EnterBatcher(ctx));
  return b.add(q, entry);
}
