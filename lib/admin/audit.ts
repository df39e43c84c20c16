import type { Clock } from "../clock.ts";
import { keys } from "../store/keys.ts";
import { randomId } from "./secrets.ts";

/** One admin activity event. `detail` never carries secrets (see `redactDetail`). */
export interface AuditEntry {
  id: string;
  /** Unix ms. */
  at: number;
  /** Username of the signed-in admin, "bearer" for the TOKEN_SECRET, or "anonymous". */
  actor: string;
  action: string;
  ip: string;
  detail: Record<string, unknown>;
}

/** How long entries are kept (KV expiry); the log is for recent activity, not an archive. */
export const AUDIT_RETENTION_MS = 90 * 86_400_000;

const SECRET_KEY = /pass|phrase|secret|token|hash|cookie|authorization|credential|session/i;

/** Drops every text or object field whose name suggests a secret, at any depth. */
export function redactDetail(detail: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(detail)) {
    // Flags and counts (`hasSecret: true`) say nothing secret; strings and objects might.
    if (SECRET_KEY.test(k) && typeof v !== "boolean" && typeof v !== "number") continue;
    out[k] = v && typeof v === "object" && !Array.isArray(v)
      ? redactDetail(v as Record<string, unknown>)
      : v;
  }
  return out;
}

let seq = 0;
/** Entry ids sort in write order within one millisecond of one process (random across processes). */
function entryId(): string {
  seq = (seq + 1) % 36 ** 6;
  return `${seq.toString(36).padStart(6, "0")}${randomId().slice(0, 10)}`;
}

/** Appends an entry to the audit log. */
export async function writeAudit(
  kv: Deno.Kv,
  clock: Clock,
  e: Omit<AuditEntry, "id" | "at">,
): Promise<AuditEntry> {
  const entry: AuditEntry = {
    id: entryId(),
    at: clock.now(),
    actor: e.actor,
    action: e.action,
    ip: e.ip,
    detail: redactDetail(e.detail),
  };
  await kv.set(keys.audit(entry.at, entry.id), entry, { expireIn: AUDIT_RETENTION_MS });
  return entry;
}

/** The most recent `limit` entries, newest first. */
export async function listAudit(kv: Deno.Kv, limit: number): Promise<AuditEntry[]> {
  const out: AuditEntry[] = [];
  for await (
    const e of kv.list<AuditEntry>({ prefix: keys.auditPrefix() }, { reverse: true, limit })
  ) {
    out.push(e.value);
  }
  return out;
}
