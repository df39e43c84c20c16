import type { Services } from "./services.ts";
import { ticketFor } from "../http/cookies.ts";
import { errorResponse } from "../http/response.ts";
import { mayHaveBody } from "../lib/http/body_deadline.ts";
import { joinStatus, joinWithAccess, requesterOf } from "../lib/access/join.ts";
import { MAX_BODY_BYTES, QUEUE_NAME_RE, VISITOR_ID_RE } from "../lib/names.ts";
import { visitorResponse } from "./status_fast.ts";

/** Request URLs of `POST /join` (any query string; Hono routes on the path alone). */
export const JOIN_URL = /^https?:\/\/[^/]+\/join(\?|$)/;
/** Content types both Hono's JSON gate and its validator accept (others go to Hono). */
const JSON_TYPES = new Set([
  "application/json",
  "application/json;charset=utf-8",
  "application/json; charset=utf-8",
]);
const dec = new TextDecoder();

/** The request again, with the body already read, for Hono to answer (errors, odd input). */
function replay(req: Request, body: Uint8Array<ArrayBuffer>): Request {
  return new Request(req, { body });
}

/** Reads at most `MAX_BODY_BYTES + 1` bytes: more only tells Hono's body limit to answer 413. */
async function readBody(req: Request): Promise<Uint8Array<ArrayBuffer>> {
  const len = req.headers.get("content-length");
  if (len !== null && !req.headers.has("transfer-encoding")) {
    return new Uint8Array(await req.arrayBuffer());
  }
  if (req.body === null) return new Uint8Array(0);
  const reader = req.body.getReader();
  const parts: Uint8Array<ArrayBuffer>[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    size += value.length;
    if (size > MAX_BODY_BYTES) {
      reader.cancel().catch(() => {});
      break;
    }
  }
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) out.set(p, at), at += p.length;
  return out;
}

/**
 * `POST /join` without Hono: the same body limit, JSON gate and validation, engine call, cookies
 * and headers as the Hono route. Anything it does not fully check itself (another content type,
 * a body over the limit, malformed JSON, a failed validation) is handed back, with the body read
 * so far, for Hono to answer with its exact envelope; `Request` is then the one to pass on.
 * Engine errors get the same envelope `onError` makes. `info` (the socket address) feeds the
 * IP allowlist under the same trusted-proxy rule as every other path.
 */
export async function fastJoin(
  s: Services,
  req: Request,
  info?: Deno.ServeHandlerInfo,
): Promise<Response | Request> {
  const ct = req.headers.get("content-type");
  // `mayHaveBody`, not `req.body`: that getter would turn the read below into a stream's.
  if (ct === null || !JSON_TYPES.has(ct.toLowerCase()) || !mayHaveBody(req)) return req;
  const len = req.headers.get("content-length");
  // Hono's body limit trusts a declared length: over it, Hono answers 413 without reading.
  if (len !== null && !req.headers.has("transfer-encoding") && parseInt(len, 10) > MAX_BODY_BYTES) {
    return req;
  }
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    bytes = await readBody(req);
  } catch {
    // The body never arrived whole (the client went, or the deadline answered 408 already): Hono
    // answers what is left, as for any route whose body cannot be read, without an error line.
    return replay(req, new Uint8Array(0));
  }
  if (bytes.length > MAX_BODY_BYTES) return replay(req, bytes);
  // deno-lint-ignore no-explicit-any
  let body: any;
  try {
    body = JSON.parse(dec.decode(bytes));
  } catch {
    return replay(req, bytes);
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) return replay(req, bytes);
  const { queue, visitorId } = body;
  // A join carrying a challenge answer or an enqueue token goes the validated way (Hono).
  if (
    "proof" in body || "turnstileResponse" in body || "enqueueToken" in body ||
    "priorityCode" in body
  ) {
    return replay(req, bytes);
  }
  if (
    typeof queue !== "string" || !QUEUE_NAME_RE.test(queue) ||
    (visitorId !== undefined && (typeof visitorId !== "string" || !VISITOR_ID_RE.test(visitorId)))
  ) return replay(req, bytes);
  try {
    const out = await joinWithAccess(
      s,
      queue,
      await ticketFor(s.signer, req.headers.get("cookie"), queue),
      visitorId,
      requesterOf(req.headers, info, s.config),
    );
    s.engine.maybeTick(queue);
    return visitorResponse(s, req, joinStatus(out.view), out.view, out.ticket);
  } catch (err) {
    return errorResponse(err, req);
  }
}
