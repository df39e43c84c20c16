import type { Context, MiddlewareHandler } from "hono";
import type { Services } from "./services.ts";
import { UnauthorizedError } from "../lib/errors.ts";
import { safeEqualString } from "../lib/tokens.ts";

/** The credential of an `Authorization: Bearer <value>` header, if any. */
export function bearerOf(c: Context): string | undefined {
  const auth = c.req.header("authorization");
  return auth && /^bearer /i.test(auth) ? auth.slice(7).trim() : undefined;
}

/** Accepts only `Authorization: Bearer <TOKEN_SECRET>`, compared in constant time (claim, reset). */
export function bearerOnly(s: Services): MiddlewareHandler {
  return async (c, next) => {
    if (!safeEqualString(bearerOf(c) ?? "", s.config.TOKEN_SECRET)) {
      throw new UnauthorizedError("Authorization: Bearer <TOKEN_SECRET> required");
    }
    await next();
  };
}
