import { retryCommit, STARTUP_DEADLINE_MS } from "./commit.ts";
import { pruneTraffic } from "../traffic.ts";
import { keys } from "./keys.ts";
import { migrateJoinLayout } from "./migrate_073.ts";

/** One append-only migration: `to` is the schema version it produces. Never edit or reorder. */
export interface Migration {
  to: number;
  description: string;
  /** `nowMs` comes from the app's clock. */
  run(kv: Deno.Kv, nowMs: number): Promise<void>;
}

/** The migrations, in order. Append only. */
export const MIGRATIONS: Migration[] = [
  {
    to: 1,
    description: "initial layout: queue settings, counts, visitor records and indexes",
    run: () => Promise.resolve(),
  },
  {
    to: 2,
    description:
      "0.2.0: traffic buckets written by 0.1.0 never expired; drop those older than 25 h",
    run: async (kv, nowMs) => {
      for await (const e of kv.list<unknown>({ prefix: keys.queues() })) {
        await pruneTraffic(kv, e.key[1] as string, nowMs);
      }
    },
  },
  {
    to: 3,
    description: "0.8.0: joins write their own records and the tick numbers them; 0.7.3's join " +
      "chunks expanded into line entries, its hand-over records and join turns deleted",
    run: (kv) => migrateJoinLayout(kv),
  },
];

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].to;

/**
 * Brings the store to `SCHEMA_VERSION`, one migration at a time; each step bumps the stored
 * version with a check so two instances starting together run it once.
 */
export async function migrate(
  kv: Deno.Kv,
  migrations = MIGRATIONS,
  nowMs = Date.now(),
): Promise<number> {
  for (;;) {
    const cur = await retryCommit(
      () => kv.get<number>(keys.schemaVersion()),
      "migrate",
      { deadlineMs: STARTUP_DEADLINE_MS },
    );
    const version = cur.value ?? 0;
    const next = migrations.find((m) => m.to > version);
    if (!next) return version;
    await next.run(kv, nowMs);
    // Losing the check means another instance recorded this step: read again and go on.
    await retryCommit(
      async () => {
        await kv.atomic().check(cur).set(keys.schemaVersion(), next.to).commit();
        return true;
      },
      "migrate",
      { deadlineMs: STARTUP_DEADLINE_MS },
    );
  }
}
