/** Assertions on `node:assert/strict` (no @std here: JSR is unreachable). */
import { deepStrictEqual } from "node:assert/strict";

/** Asserts `cond` is truthy. */
export function assert(cond: unknown, msg = "assertion failed"): asserts cond {
  if (!cond) throw new Error(msg);
}

/** Strict deep equality (prototypes, Maps, Sets and Dates compared by content, -0 apart from 0). */
export function assertEquals<T>(actual: T, expected: T, msg?: string): void {
  try {
    deepStrictEqual(actual, expected);
  } catch (e) {
    throw new Error(
      `${msg ? msg + ": " : ""}expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`,
      { cause: e },
    );
  }
}

/** Asserts that `fn` throws, optionally with a message containing `includes`. */
export function assertThrows(fn: () => unknown, includes?: string): Error {
  try {
    fn();
  } catch (e) {
    checkMessage(e, includes);
    return e as Error;
  }
  throw new Error("expected a throw");
}

/** Asserts that `fn` rejects, optionally with a message containing `includes`. */
export async function assertRejects(fn: () => Promise<unknown>, includes?: string): Promise<Error> {
  try {
    await fn();
  } catch (e) {
    checkMessage(e, includes);
    return e as Error;
  }
  throw new Error("expected a rejection");
}

function checkMessage(e: unknown, includes: string | undefined): void {
  if (includes && !String((e as Error).message).includes(includes)) {
    throw new Error(`expected error containing "${includes}", got "${(e as Error).message}"`);
  }
}
