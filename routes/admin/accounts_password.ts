import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { getCookie } from "hono/cookie";
import type { Services } from "../services.ts";
import { changePassword, recoverAccount, regenerateRecovery } from "../../lib/admin/credentials.ts";
import { hitRateLimit, limitAddress, resetRateLimit } from "../../lib/admin/rate_limit.ts";
import { sessionHash } from "../../lib/admin/sessions.ts";
import { clientIpOf } from "../../http/hono.ts";
import { adminSecurity, errs, jsonBody, jsonOk } from "../schemas.ts";
import {
  ChallengeResponse,
  GivenPassword,
  GivenUsername,
  NewAccountView,
  NewPassword,
  Ok,
} from "./accounts_schemas.ts";
import {
  ADMIN_COOKIE,
  type AdminEnv,
  adminSession,
  audit,
  challengeUnavailable,
  publicGate,
  setSessionCookie,
  signIn,
} from "./session.ts";
import { validationHook } from "../../http/validation.ts";

const Phrase = z.string().min(1).max(512).openapi({
  description: "the 12 recovery words, separated by spaces",
});

const changeRoute = createRoute({
  method: "put",
  path: "/api/admin/password",
  summary: "Change your password; this session gets a new id (new cookie), the others end",
  description: "A wrong `currentPassword` is 403 `forbidden` (the session itself is fine); " +
    "wrong tries count against the login limit of this IP and username.",
  security: adminSecurity,
  request: {
    body: jsonBody(
      z.object({
        currentPassword: GivenPassword,
        newPassword: NewPassword,
        confirmPassword: z.string().max(1024),
      }).refine((b) => b.newPassword === b.confirmPassword, {
        message: "must equal newPassword",
        path: ["confirmPassword"],
      }),
    ),
  },
  responses: { 200: jsonOk(Ok, "changed"), ...errs(400, 401, 403, 429) },
});

const recoverRoute = createRoute({
  method: "post",
  path: "/api/admin/password/recover",
  summary: "Reset a password with the recovery phrase (5 per hour per IP)",
  description:
    "The used phrase stops working: the answer carries a NEW phrase (shown once) and a " +
    "new session; every other session and every pending invite of that admin ends.",
  request: {
    body: jsonBody(z.object({
      username: GivenUsername,
      recoveryPhrase: Phrase,
      newPassword: NewPassword,
      challengeResponse: ChallengeResponse,
    })),
  },
  responses: {
    200: jsonOk(NewAccountView, "password reset; new phrase; sets tg_admin"),
    ...errs(400, 401, 429),
    ...challengeUnavailable,
  },
});

const regenerateRoute = createRoute({
  method: "post",
  path: "/api/admin/recovery/regenerate",
  summary: "Replace your recovery phrase (needs your password); the new one is shown once",
  security: adminSecurity,
  request: { body: jsonBody(z.object({ currentPassword: GivenPassword })) },
  responses: {
    200: jsonOk(z.object({ recoveryPhrase: z.string() }), "the new phrase"),
    ...errs(400, 401, 403, 429),
  },
});

/** Password change, recovery and recovery-phrase regeneration. */
export function passwordRoutes(s: Services) {
  const app = new OpenAPIHono<AdminEnv>({ defaultHook: validationHook });
  const session = adminSession(s);
  app.use("/api/admin/password", session);
  app.use("/api/admin/recovery/regenerate", session);

  /**
   * Wrong current passwords have a budget per address and account, so a stolen session cannot
   * guess at will (the session already proves who signed in: no lock-out of others here).
   */
  const guarded = async <T>(c: Parameters<typeof audit>[1], run: () => Promise<T>) => {
    const addr = limitAddress(clientIpOf(c, s.config));
    const subject = `${addr}|${c.get("admin").username.toLowerCase()}`;
    await hitRateLimit(s.kv, s.clock, "login", subject);
    const out = await run();
    await resetRateLimit(s.kv, s.clock, "login", subject);
    return out;
  };

  app.openapi(changeRoute, async (c) => {
    const b = c.req.valid("json");
    const current = sessionHash(s.config.TOKEN_SECRET, getCookie(c, ADMIN_COOKIE) ?? "");
    const fresh = await guarded(c, () => changePassword(s, c.get("admin").id, current, b));
    setSessionCookie(s, c, fresh);
    await audit(s, c, "password.change");
    return c.json({ ok: true as const }, 200);
  });

  app.openapi(recoverRoute, async (c) => {
    const b = c.req.valid("json");
    await publicGate(s, c, "recover", b.challengeResponse);
    const out = await recoverAccount(s, {
      username: b.username,
      recoveryPhrase: b.recoveryPhrase,
      newPassword: b.newPassword,
    });
    await signIn(s, c, out, "password.recover", { invitesDeleted: out.invitesDeleted });
    return c.json({ user: out.user, recoveryPhrase: out.phrase }, 200);
  });

  app.openapi(regenerateRoute, async (c) => {
    const { currentPassword } = c.req.valid("json");
    const admin = c.get("admin");
    const phrase = await guarded(c, () => regenerateRecovery(s, admin.id, currentPassword));
    await audit(s, c, "recovery.regenerate");
    return c.json({ recoveryPhrase: phrase }, 200);
  });
  return app;
}
