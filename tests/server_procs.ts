/** Server processes for multi-process tests (they live in testing/). */
export * from "../testing/procs.ts";
