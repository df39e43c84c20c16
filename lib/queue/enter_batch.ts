import { keys } from "../store/keys.ts";
import { QueueBatches } from "./batches.ts";
import type { QueueContext } from "./context.ts";
import { enterAdmitted } from "./records.ts";
import type { Visitor } from "./types.ts";

interface PendingEnter {
  entry: Deno.KvEntry<Visitor>;
  resolve: (v: Visitor | null) => void;
  reject: (e: unknown) => void;
}

/** Entries per commit: each checks its visitor record (an op allows 100 checks). */
const MAX_ENTERS = 90;

/**
 * Group commit of admitted visitors entering: the enters that arrive while one commit is in flight
 * go together in the next, so the counts record is written once per batch. One commit per enter
 * kept this instance's counts writers busy for longer than a second per second once a commit
 * took 100 ms (found by bench/scale_sim.ts), and join batches waited behind them.
 */
class EnterBatcher {
  #batches = new QueueBatches<PendingEnter>(
    (list) => list.splice(0, MAX_ENTERS),
    async (q, batch) => {
      // Another instance's turn at the join commit: wait for it (within half the write bound),
      // outside this instance's line of counts writers, or the holder's commits beat this one.
      // Judged first by this instance's cached view (no read while the turn is its own or
      // nobody's); a turn that moved since costs at most a lost commit, which callers re-read.
      const ctx = this.ctx;
      const seen = ctx.freshView(q)?.counts;
      if (!seen || ctx.turns.heldByOther(seen, Date.now())) {
        await ctx.turns.waitTurn(
          q,
          async () => (await ctx.readCounts(q)).counts,
          Date.now() + 1250,
        );
      }
      const out = await ctx.serial(q, () => this.#commit(q, batch));
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
    const { counts, entry: ce } = await ctx.readCounts(q);
    const op = ctx.kv.atomic().check(ce);
    const now = ctx.now();
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
    op.set(keys.counts(q), counts);
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
