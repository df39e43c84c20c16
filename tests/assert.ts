/** Minimal assertions (no @std here: JSR is unreachable). */
export function assert(cond: unknown, msg = "assertion failed"): asserts cond {
  if (!cond) throw new Error(msg);
}

function eq(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a), kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => eq((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** Deep equality. */
export function assertEquals<T>(actual: T, expected: T, msg?: string): void {
  if (!eq(actual, expected)) {
    throw new Error(
      `${msg ? msg + ": " : ""}expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`,
    );
  }
}

/** Asserts that `fn` rejects, optionally with a message containing `includes`. */
export async function assertRejects(fn: () => Promise<unknown>, includes?: string): Promise<Error> {
  try {
    await fn();
  } catch (e) {
    if (includes && !String((e as Error).message).includes(includes)) {
      throw new Error(`expected error containing "${includes}", got "${(e as Error).message}"`);
    }
    return e as Error;
  }
  throw new Error("expected a rejection");
}
