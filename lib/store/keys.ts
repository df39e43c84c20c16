/**
 * Every KV key the service uses is built here, so the layout is visible in one place.
 *
 * Queue-scoped keys all start with a short tag and the queue name.
 */
export const keys = {
  /** Schema version of the stored data (SPEC 9). */
  schemaVersion: () => ["meta", "schemaVersion"] as const,
  /** The queue's settings record (mode, rate override, capacity, cap, pause, opensAt). */
  queue: (q: string) => ["queue", q] as const,
  /** Prefix of all queue settings records. */
  queues: () => ["queue"] as const,
  /** The queue's exact counters, changed in the same atomic op as the state they count. */
  counts: (q: string) => ["counts", q] as const,
  /** A visitor's record. */
  visitor: (q: string, id: string) => ["v", q, id] as const,
  /** FIFO index of waiting visitors by arrival number. */
  fifo: (q: string, seq: number) => ["w", q, seq] as const,
  fifoPrefix: (q: string) => ["w", q] as const,
  /** Liveness deadlines of waiting visitors. */
  deadline: (q: string, ms: number, id: string) => ["d", q, ms, id] as const,
  deadlinePrefix: (q: string) => ["d", q] as const,
  /** Slot expiries of admitted (holding) and entered visitors. */
  expiry: (q: string, ms: number, id: string) => ["x", q, ms, id] as const,
  expiryPrefix: (q: string) => ["x", q] as const,
  /** Log of waiters that left the line other than from its head (for exact positions). */
  gone: (q: string, ms: number, seq: number) => ["g", q, ms, seq] as const,
  gonePrefix: (q: string) => ["g", q] as const,
  /** Number of waiters given second `sec` (unix s) as their next timeslot. */
  checkins: (q: string, sec: number) => ["ts", q, sec] as const,
  checkinsPrefix: (q: string) => ["ts", q] as const,
  /** Inflow/outflow counters in 15 s buckets. */
  traffic: (q: string, bucket: number, dir: "in" | "out") => ["t", q, bucket, dir] as const,
  trafficPrefix: (q: string) => ["t", q] as const,
  /** Service-wide branding record. */
  branding: () => ["settings", "branding"] as const,
};
