import type { Context, MiddlewareHandler } from "hono";
import type { Services } from "./services.ts";
import { UnauthorizedError } from "../lib/errors.ts";
import { safeEqualString } from "../lib/tokens.ts";

/** The credential of an `Authorization: Bearer <value>` header, if any. */
export function bearerOf(c: Context): string | undefined {
  const auth = c.req.header("authorization");
  return auth && /^bearer /i.test(auth) ? auth.slice(7).trim() : undefined;
}

/**
 * The 401 of a call that takes a bearer credential: with `WWW-Authenticate: Bearer`, which
 * RFC 9110 requires of every 401 and HTTP clients use to offer their credential.
 */
export function bearerRequired(message: string): UnauthorizedError {
  return Object.assign(new UnauthorizedError(message), {
    wwwAuthenticate: 'Bearer realm="tollgate"', // i18n-ok: a header
  });
}

/** Accepts only `Authorization: Bearer <TOKEN_SECRET>`, compared in constant time (claim, reset). */
export function bearerOnly(s: Services): MiddlewareHandler {
  return async (c, next) => {
    if (!safeEqualString(bearerOf(c) ?? "", s.config.TOKEN_SECRET)) {
      throw bearerRequired("Authorization: Bearer <TOKEN_SECRET> required");
    }
    await next();
  };
}
