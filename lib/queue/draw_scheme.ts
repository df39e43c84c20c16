/**
 * The opening draw's public scheme, shared by the engine, `deno task verify-draw` and the
 * browser check (no KV, no Deno APIs): anyone with a draw record recomputes the order.
 *
 * - commitment = SHA-256(seed), published when the pre-queue window opens;
 * - list = the participants' arrival numbers, ascending, as decimal lines joined by "\n";
 *   listHash = SHA-256(list), fixed at the opening time;
 * - key(a) = HMAC-SHA256(seed, "<a>:<listHash>") for each arrival number a;
 * - the order is the arrival numbers by key, lowest first (ties, never expected, by number).
 * All hashes are lowercase hex; the seed is 32 bytes, hex.
 */
import { HmacSha256, sha256 } from "../hmac.ts";

/** Names this scheme in every record, so a later change cannot be mistaken for it. */
export const DRAW_SCHEME = "tollgate-draw-v1";

const enc = new TextEncoder();

/** Lowercase hex of `bytes`. */
export function hex(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += b.toString(16).padStart(2, "0");
  return s;
}

/** Bytes of a hex string; null when it is not even-length hex. */
export function fromHex(s: string): Uint8Array | null {
  if (!/^(?:[0-9a-f]{2})*$/i.test(s)) return null;
  const out = new Uint8Array(s.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(s.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** The commitment to a hex seed: hex SHA-256 of its bytes. */
export function commitmentOf(seedHex: string): string {
  return hex(sha256(fromHex(seedHex) ?? new Uint8Array()));
}

/** The list's canonical text: arrival numbers ascending, one decimal a line, "\n" between. */
export function listText(arrivals: readonly number[]): string {
  return [...arrivals].sort((a, b) => a - b).join("\n");
}

/** Hex SHA-256 of the list's canonical text. */
export function listHashOf(arrivals: readonly number[]): string {
  return hex(sha256(enc.encode(listText(arrivals))));
}

/** The drawn order: the arrival numbers sorted by HMAC-SHA256(seed, "<a>:<listHash>"). */
export function drawOrder(
  seedHex: string,
  arrivals: readonly number[],
  listHash: string,
): number[] {
  const mac = new HmacSha256(fromHex(seedHex) ?? new Uint8Array());
  const keyed = arrivals.map((a) => ({ a, k: mac.mac(`${a}:${listHash}`) }));
  keyed.sort((x, y) => {
    for (let i = 0; i < 32; i++) if (x.k[i] !== y.k[i]) return x.k[i] - y.k[i];
    return x.a - y.a;
  });
  return keyed.map((x) => x.a);
}

/** A draw record as published (`GET /draw`); `seed`, `list` and `order` once drawn. */
export interface PublicDraw {
  scheme: string;
  queue: string;
  state: "committed" | "listed" | "done";
  commitment: string;
  committedAt: number;
  count?: number;
  listHash?: string;
  seed?: string;
  list?: number[];
  order?: number[];
  drawnAt?: number;
}

/** What a check of a record found: `ok` only when every check passed. */
export interface DrawCheck {
  ok: boolean;
  /**
   * One line per check, passed or failed, in plain words (English), with its message key and
   * values for pages that say it in the reader's language (`draw.<key>` in lib/i18n).
   */
  lines: { ok: boolean; text: string; key: string; values: Record<string, string | number> }[];
}

/** Recomputes a published draw: commitment, list hash, and the order from seed and list. */
export function verifyDraw(r: Partial<PublicDraw>): DrawCheck {
  const lines: DrawCheck["lines"] = [];
  const say = (
    ok: boolean,
    text: string,
    key: string,
    values: Record<string, string | number> = {},
  ) => (lines.push({ ok, text, key, values }), ok);
  const said = String(r.scheme);
  if (
    !say(
      r.scheme === DRAW_SCHEME,
      `scheme is ${DRAW_SCHEME} (record says ${said})`,
      "lineScheme",
      { scheme: DRAW_SCHEME, said },
    )
  ) {
    return { ok: false, lines };
  }
  if (!r.seed || !r.list || !r.order || !r.listHash || !r.commitment) {
    say(false, "the record has no seed, list and order yet: the draw is not done", "lineNotDone");
    return { ok: false, lines };
  }
  const seedOk = /^[0-9a-f]{64}$/.test(r.seed);
  say(seedOk, "the seed is 32 bytes of lowercase hex", "lineSeed");
  const commitment = `${r.commitment.slice(0, 16)}…`;
  const at = new Date(r.committedAt ?? 0).toISOString();
  say(
    seedOk && commitmentOf(r.seed) === r.commitment,
    `SHA-256(seed) equals the commitment ${commitment} published at ${at}`,
    "lineCommitment",
    { commitment, at },
  );
  const hash = listHashOf(r.list);
  say(
    hash === r.listHash,
    `SHA-256 of the list of ${r.list.length} arrival numbers is listHash`,
    "lineList",
    { count: r.list.length },
  );
  say(
    r.count === undefined || r.count === r.list.length,
    "count matches the list's length",
    "lineCount",
  );
  const order = drawOrder(r.seed, r.list, r.listHash);
  const same = order.length === r.order.length && order.every((a, i) => a === r.order![i]);
  say(
    same,
    "the order recomputed from the seed and the list equals the published order",
    "lineOrder",
  );
  return { ok: lines.every((l) => l.ok), lines };
}
