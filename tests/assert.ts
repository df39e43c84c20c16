/** Assertions shared by tests and bench self-checks (they live in testing/). */
export * from "../testing/assert.ts";
