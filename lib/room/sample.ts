/**
 * The Safety Net's figures for one queue: joins in the last minute (the traffic history's inflow,
 * passthrough admissions included) and visitors holding slots (the engine's holding and entered,
 * plus the slots passthrough visitors hold until their tokens expire).
 */
import type { Engine } from "../queue/engine.ts";
import { readTraffic } from "../traffic.ts";
import { passedSlots } from "./passthrough.ts";
import type { SafetyNetSample } from "./safety_net.ts";

/** A sampler over the engine and store of one instance (`ttlSeconds`: the access token's life). */
export function safetyNetSampler(
  engine: Engine,
  kv: Deno.Kv,
  ttlSeconds: number,
  counted: () => Promise<void> = () => Promise.resolve(),
): (q: string) => Promise<SafetyNetSample> {
  return async (q) => {
    // This instance's passthrough admissions are summed in memory: written before they are read.
    await counted();
    const now = engine.ctx.now();
    const [m, rows, passed] = await Promise.all([
      engine.metrics(q),
      readTraffic(kv, q, now, 60_000),
      passedSlots(kv, q, now, ttlSeconds),
    ]);
    const joinsPerMinute = rows.reduce((n, r) => n + r.inflow, 0);
    return { joinsPerMinute, holding: m.holding + m.entered + passed };
  };
}
