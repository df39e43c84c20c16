import type { Context } from "hono";
import type { Config } from "./config.ts";

/**
 * The visitor's IP: from `CLIENT_IP_HEADER` when configured (the edge network sets it), else the
 * socket address. `X-Forwarded-For` is never trusted implicitly.
 */
export function clientIp(c: Context, config: Pick<Config, "CLIENT_IP_HEADER">): string {
  if (config.CLIENT_IP_HEADER) {
    // In a list (X-Forwarded-For style) the right-most entry is the one the trusted proxy
    // appended; anything left of it came from the client and could be spoofed.
    const v = c.req.header(config.CLIENT_IP_HEADER)?.split(",").pop()?.trim();
    return v || "unknown";
  }
  const info = c.env as Deno.ServeHandlerInfo | undefined;
  const addr = info?.remoteAddr as Deno.NetAddr | undefined;
  return addr?.hostname ?? "unknown";
}
