/// <reference lib="dom" />
/** Provider failures of the Edge tab made readable: the server's message and Cloudflare's codes. */
import { ApiError, messageOf } from "../api.ts";

/** The server's message plus, for `edge_error`, Cloudflare's own error codes and the wait. */
export function edgeMessage(e: unknown): string {
  let text = messageOf(e);
  if (e instanceof ApiError && e.code === "edge_error") {
    const errs = e.details.providerErrors;
    if (Array.isArray(errs) && errs.length) {
      const codes = errs.map((x: { code?: number; message?: string }) =>
        `${x.code ?? "?"} ${x.message ?? ""}`.trim()
      );
      if (!codes.every((c) => text.includes(c))) text += ` (Cloudflare: ${codes.join("; ")})`;
    }
    const wait = e.details.retryAfterSeconds;
    if (typeof wait === "number") text += ` Try again in ${wait} s.`;
  }
  return text;
}

/** Runs `fn`, turning any failure into an Error carrying `edgeMessage`. */
export async function edgeCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw new Error(edgeMessage(e));
  }
}
