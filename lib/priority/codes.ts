/**
 * Priority codes: operator-issued codes that put a visitor in a priority lane, single-use or with
 * a use count, with an optional expiry, listed and revocable, stored only as a keyed hash (a copy
 * of the store does not give the codes away). Engine-independent: issuing, listing, revoking and
 * redeeming (one checked write that counts a use); the join engine calls `redeemCode` when a
 * visitor enters a code, and places it in the lane the code names.
 *
 * Codes are 15 characters of Crockford's base32 (75 bits) in groups of five, `K3M9Q-…`; entry is
 * forgiving: case, spaces and dashes do not matter, and O/I/L read as 0/1/1.
 */
import type { Clock } from "../clock.ts";
import { AppError, BadRequestError, NotFoundError } from "../errors.ts";
import { pastTime } from "../past_time.ts";
import { hmac, randomId } from "../admin/secrets.ts";
import { retryCommit } from "../store/commit.ts";
import { keys } from "../store/keys.ts";

const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
/** Characters of a code (without its dashes). */
export const CODE_LENGTH = 15;
/** Most codes one request issues. */
export const MAX_CODES_PER_ISSUE = 1000;
/** Most uses one code may have. */
export const MAX_USES = 1_000_000;

/** A code as stored (never the code itself). */
export interface PriorityCodeRecord {
  id: string;
  queue: string;
  lane: string;
  label: string;
  /** 1: single-use. */
  maxUses: number;
  uses: number;
  /** Unix ms; null: no expiry. */
  expiresAt: number | null;
  createdAt: number;
  createdBy: string;
  revokedAt: number | null;
}

/** Why a code was refused (`details.reason` of `priority_code_invalid`). */
export type CodeRefusal = "malformed" | "unknown" | "expired" | "revoked" | "used_up";

/** 403 `priority_code_invalid`: the code was refused; nothing was counted. */
export class PriorityCodeError extends AppError {
  constructor(readonly reason: CodeRefusal, message: string) {
    super(403, "priority_code_invalid", message, { reason });
  }
}

/** The code as typed, in its one spelling (upper case, no separators, O/I/L as 0/1/1), or null. */
export function normalizeCode(raw: string): string | null {
  const s = raw.toUpperCase().replace(/[\s-]/g, "").replace(/O/g, "0").replace(/[IL]/g, "1");
  if (s.length !== CODE_LENGTH) return null;
  for (const ch of s) if (!ALPHABET.includes(ch)) return null;
  return s;
}

/** A new random code, grouped for reading (`XXXXX-XXXXX-XXXXX`). */
export function newCode(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(CODE_LENGTH));
  let s = "";
  for (const b of bytes) s += ALPHABET[b & 31];
  return `${s.slice(0, 5)}-${s.slice(5, 10)}-${s.slice(10)}`;
}

/** The keyed hash a code is stored under (per queue: a code is for one queue only). */
export function codeHash(secret: string, queue: string, normalized: string): string {
  return hmac(secret, "priority-code", `${queue}\n${normalized}`);
}

/** What an operator asks to issue. */
export interface IssueInput {
  queue: string;
  lane: string;
  count: number;
  maxUses: number;
  expiresAt: number | null;
  label: string;
  createdBy: string;
}

/** Issues `count` codes; the codes themselves are returned here once and never again. */
export async function issueCodes(
  kv: Deno.Kv,
  clock: Clock,
  secret: string,
  input: IssueInput,
): Promise<{ codes: string[]; records: PriorityCodeRecord[] }> {
  const now = clock.now();
  if (input.expiresAt !== null && input.expiresAt <= now) {
    throw new BadRequestError(
      `expiresAt: must be in the future; ${pastTime(input.expiresAt, now)}`,
      {
        fields: [{ path: "expiresAt", message: "must be in the future" }],
      },
    );
  }
  const codes: string[] = [];
  const records: PriorityCodeRecord[] = [];
  // Two mutations a code: 400 codes an atomic write stays well under its limits.
  for (let at = 0; at < input.count; at += 400) {
    const op = kv.atomic();
    for (let i = at; i < Math.min(input.count, at + 400); i++) {
      const code = newCode();
      const hash = codeHash(secret, input.queue, normalizeCode(code)!);
      const rec: PriorityCodeRecord = {
        id: randomId(),
        queue: input.queue,
        lane: input.lane,
        label: input.label,
        maxUses: input.maxUses,
        uses: 0,
        expiresAt: input.expiresAt,
        createdAt: now,
        createdBy: input.createdBy,
        revokedAt: null,
      };
      op.check({ key: keys.priorityCode(input.queue, hash), versionstamp: null })
        .set(keys.priorityCode(input.queue, hash), rec)
        .set(keys.priorityCodeId(input.queue, rec.id), hash);
      codes.push(code);
      records.push(rec);
    }
    // A clash of 75 random bits does not happen; a lost check would only mean "issue again".
    if (!(await op.commit()).ok) throw new AppError(500, "internal", "code clash; issue again");
  }
  return { codes, records };
}

/** Every code of `queue`, newest first (at most `limit`). */
export async function listCodes(
  kv: Deno.Kv,
  queue: string,
  limit = 1000,
): Promise<PriorityCodeRecord[]> {
  const out: PriorityCodeRecord[] = [];
  for await (const e of kv.list<PriorityCodeRecord>({ prefix: keys.priorityCodePrefix(queue) })) {
    out.push(e.value);
  }
  return out.sort((a, b) => b.createdAt - a.createdAt).slice(0, limit);
}

/** Revokes a code by its id (404 `not_found` when there is none); revoking twice is no error. */
export async function revokeCode(
  kv: Deno.Kv,
  clock: Clock,
  queue: string,
  id: string,
): Promise<PriorityCodeRecord> {
  return await retryCommit(async () => {
    const hash = (await kv.get<string>(keys.priorityCodeId(queue, id))).value;
    const entry = hash ? await kv.get<PriorityCodeRecord>(keys.priorityCode(queue, hash)) : null;
    if (!hash || !entry?.value) {
      throw new NotFoundError("not_found", `no priority code ${id} in queue "${queue}"`);
    }
    if (entry.value.revokedAt !== null) return entry.value;
    const next = { ...entry.value, revokedAt: clock.now() };
    const ok =
      (await kv.atomic().check(entry).set(keys.priorityCode(queue, hash), next).commit()).ok;
    return ok ? next : null;
  }, "revoke priority code");
}

/**
 * Redeems `raw` for `queue`: counts one use with a checked write and returns the record as it
 * now is (its `lane`). A malformed, unknown, expired, revoked or used-up code is 403
 * `priority_code_invalid` with its reason, and nothing is counted.
 */
export async function redeemCode(
  kv: Deno.Kv,
  clock: Clock,
  secret: string,
  queue: string,
  raw: string,
): Promise<PriorityCodeRecord> {
  const normalized = normalizeCode(raw);
  if (!normalized) {
    throw new PriorityCodeError(
      "malformed",
      `a priority code is ${CODE_LENGTH} letters and digits`,
    );
  }
  const key = keys.priorityCode(queue, codeHash(secret, queue, normalized));
  return await retryCommit(async () => {
    const entry = await kv.get<PriorityCodeRecord>(key);
    const rec = entry.value;
    if (!rec) throw new PriorityCodeError("unknown", "this priority code is not valid here");
    if (rec.revokedAt !== null) {
      throw new PriorityCodeError("revoked", "this priority code was withdrawn");
    }
    if (rec.expiresAt !== null && rec.expiresAt <= clock.now()) {
      throw new PriorityCodeError("expired", "this priority code has expired");
    }
    if (rec.uses >= rec.maxUses) {
      throw new PriorityCodeError(
        "used_up",
        rec.maxUses === 1
          ? "this priority code was used already"
          : `this priority code was used its ${rec.maxUses} times already`,
      );
    }
    const next = { ...rec, uses: rec.uses + 1 };
    return (await kv.atomic().check(entry).set(key, next).commit()).ok ? next : null;
  }, "redeem priority code");
}
