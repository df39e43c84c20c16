/** Retries an atomic step while it loses a check or the KV file is locked by another process. */
export async function retryCommit<T>(
  step: () => Promise<T | null>,
  what: string,
  attempts = 200,
): Promise<T> {
  for (let i = 0; i < attempts; i++) {
    try {
      const out = await step();
      if (out !== null) return out;
    } catch (e) {
      if (!isLockError(e)) throw e;
    }
    // Jittered back-off keeps contending instances from retrying in lock-step.
    if (i > 2) await new Promise((r) => setTimeout(r, Math.min(50, i) * Math.random()));
  }
  throw new Error(`${what}: gave up after ${attempts} conflicting attempts`);
}

/** True for SQLite's lock errors from a KV file shared by processes (not for domain errors). */
export function isLockError(e: unknown): boolean {
  return e instanceof Error && /^database (table )?is locked|SQLITE_BUSY/.test(e.message);
}
