/**
 * The stored path rules of every queue, cached per instance for about a second (the origin proxy
 * and each forward-auth check ask on every request without a token, so asking costs no KV read
 * per request). A store that cannot be read keeps the last rules known.
 */
import type { Clock } from "../clock.ts";
import { keys } from "../store/keys.ts";
import { type CompiledRules, compileRules, NO_RULES, type PathRule } from "./rules.ts";

/** How long an instance trusts its copy of a queue's rules. */
export const RULES_CACHE_MS = 1000;

/** A queue's rules as stored. */
export interface PathRulesRecord {
  rules: PathRule[];
  updatedAt: number;
}

/** Reads, caches and writes the path rules of one instance. */
export class PathRuleSets {
  #cache = new Map<string, { set: CompiledRules; at: number }>();
  #loading = new Map<string, Promise<CompiledRules>>();

  constructor(private readonly kv: Deno.Kv, private readonly clock: Clock) {}

  /** The cached rules of `q` while fresh, else null. */
  fresh(q: string): CompiledRules | null {
    const hit = this.#cache.get(q);
    return hit && this.clock.now() - hit.at < RULES_CACHE_MS ? hit.set : null;
  }

  /** The last rules known for `q` however old (an outage keeps them), or null before any read. */
  lastKnown(q: string): CompiledRules | null {
    return this.#cache.get(q)?.set ?? null;
  }

  /** The rules of `q`: from the cache, or one KV read shared by concurrent callers. */
  current(q: string): Promise<CompiledRules> {
    const hit = this.fresh(q);
    if (hit) return Promise.resolve(hit);
    let p = this.#loading.get(q);
    if (!p) {
      p = this.#read(q).then((rec) => {
        // Stored rules were valid when saved; a queue deleted since only makes its route 404.
        const set = rec.rules.length ? compileRules(rec.rules, q) : NO_RULES;
        this.#cache.set(q, { set, at: this.clock.now() });
        return set;
      }, (e) => {
        const last = this.lastKnown(q);
        if (last) return last;
        throw e;
      }).finally(() => this.#loading.delete(q));
      this.#loading.set(q, p);
    }
    return p;
  }

  /** The stored record of `q` (an empty list when never saved). */
  async #read(q: string): Promise<PathRulesRecord> {
    const v = (await this.kv.get<PathRulesRecord>(keys.pathRules(q))).value;
    return v && Array.isArray(v.rules) ? v : { rules: [], updatedAt: 0 };
  }

  /** The stored record of `q`, read afresh (the admin view). */
  read(q: string): Promise<PathRulesRecord> {
    return this.#read(q);
  }

  /** Validates and stores the rules of `q` (400 and nothing stored when any is bad). */
  async save(q: string, rules: PathRule[], queues: string[]): Promise<PathRulesRecord> {
    compileRules(rules, q, queues);
    const rec: PathRulesRecord = { rules, updatedAt: this.clock.now() };
    await this.kv.set(keys.pathRules(q), rec);
    this.#cache.delete(q);
    return rec;
  }
}
