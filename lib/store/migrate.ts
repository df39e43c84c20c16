import { retryCommit } from "./commit.ts";
import { keys } from "./keys.ts";

/** One append-only migration: `to` is the schema version it produces. Never edit or reorder. */
export interface Migration {
  to: number;
  description: string;
  run(kv: Deno.Kv): Promise<void>;
}

/** The migrations, in order. Append only (SPEC 9.4). */
export const MIGRATIONS: Migration[] = [
  {
    to: 1,
    description: "initial layout: queue settings, counts, visitor records and indexes",
    run: () => Promise.resolve(),
  },
];

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].to;

/**
 * Brings the store to `SCHEMA_VERSION`, one migration at a time; each step bumps the stored
 * version with a check so two instances starting together run it once.
 */
export async function migrate(kv: Deno.Kv, migrations = MIGRATIONS): Promise<number> {
  for (;;) {
    const cur = await retryCommit(() => kv.get<number>(keys.schemaVersion()), "migrate");
    const version = cur.value ?? 0;
    const next = migrations.find((m) => m.to > version);
    if (!next) return version;
    await next.run(kv);
    // Losing the check means another instance recorded this step: read again and go on.
    await retryCommit(async () => {
      await kv.atomic().check(cur).set(keys.schemaVersion(), next.to).commit();
      return true;
    }, "migrate");
  }
}
