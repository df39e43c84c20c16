/** Counting answers: outcomes by status and error code, latencies, and their summary. */
import { percentile } from "../checkins_sim.ts";
import type { Answer } from "./http.ts";

/** What one kind of request measured. */
export interface TallySummary {
  requests: number;
  /** Answers by outcome: `200`, `202`, `503 queue_full`, `socket error`, ... */
  outcomes: Record<string, number>;
  /** Answers with status 0 (no answer) or 400 and above. */
  errors: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** The error code of an error envelope (`{"error":{"code":...}}`), or "" when there is none. */
export function errorCode(body: string): string {
  try {
    const code = JSON.parse(body)?.error?.code;
    return typeof code === "string" ? code : "";
  } catch {
    return "";
  }
}

/** Counts the answers of one kind of request. */
export class Tally {
  requests = 0;
  errors = 0;
  outcomes = new Map<string, number>();
  latencies: number[] = [];

  /** Counts `a`; returns its outcome key. */
  add(a: Answer): string {
    this.requests++;
    this.latencies.push(a.ms);
    let key = String(a.status);
    if (a.status === 0) key = "socket error";
    else if (a.status >= 400) key = `${a.status} ${errorCode(a.body) || "(no code)"}`.trim();
    if (a.status === 0 || a.status >= 400) this.errors++;
    this.outcomes.set(key, (this.outcomes.get(key) ?? 0) + 1);
    return key;
  }

  /** Errors other than the outcomes in `expected` (e.g. `503 queue_full` by design). */
  unexpected(expected: string[] = []): number {
    let n = this.errors;
    for (const k of expected) n -= this.outcomes.get(k) ?? 0;
    return n;
  }

  summary(): TallySummary {
    const l = this.latencies;
    return {
      requests: this.requests,
      outcomes: Object.fromEntries([...this.outcomes].sort()),
      errors: this.errors,
      p50Ms: percentile(l, 50),
      p99Ms: percentile(l, 99),
      maxMs: percentile(l, 100),
    };
  }
}

/** Per-second counts over `[fromSec, toSec)` and their statistics. */
export interface PerSecond {
  seconds: number;
  mean: number;
  p50: number;
  p99: number;
  max: number;
  min: number;
}

/** Statistics of `counts` (second -> count) over the whole seconds `[fromSec, toSec)`. */
export function perSecond(counts: Map<number, number>, fromSec: number, toSec: number): PerSecond {
  const xs: number[] = [];
  for (let s = fromSec; s < toSec; s++) xs.push(counts.get(s) ?? 0);
  const sum = xs.reduce((a, b) => a + b, 0);
  return {
    seconds: xs.length,
    mean: xs.length ? sum / xs.length : 0,
    p50: percentile(xs, 50),
    p99: percentile(xs, 99),
    max: xs.length ? Math.max(...xs) : 0,
    min: xs.length ? Math.min(...xs) : 0,
  };
}
