/** A queue's room switch in the operator metrics: the switch, what visitors meet, passthrough slots. */
import type { EffectiveRoomMode, RoomMode } from "./modes.ts";
import { passedSlots } from "./passthrough.ts";
import type { RoomSwitches } from "./switches.ts";

/** The `room` object of a queue's metrics. */
export interface RoomMetrics {
  mode: RoomMode;
  effectiveMode: EffectiveRoomMode;
  /** True while the Safety Net queues (mode auto only). */
  safetyNetQueueing: boolean | null;
  /** Slots held by visitors a passthrough room let in (until their tokens expire). */
  passthroughSlots: number;
}

/** Reads the room metrics of a queue. */
export function roomMetricsOf(
  rooms: RoomSwitches,
  kv: Deno.Kv,
  now: () => number,
  ttlSeconds: number,
  counted: () => Promise<void> = () => Promise.resolve(),
): (q: string) => Promise<RoomMetrics> {
  return async (q) => {
    // This instance's passthrough admissions are summed in memory: written before they are read.
    await counted();
    const [st, slots] = await Promise.all([
      rooms.current(q),
      passedSlots(kv, q, now(), ttlSeconds),
    ]);
    return {
      mode: st.record.mode,
      effectiveMode: st.effective,
      safetyNetQueueing: st.auto ? st.auto.queueing : null,
      passthroughSlots: slots,
    };
  };
}
