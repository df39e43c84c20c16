import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Services } from "../services.ts";
import {
  acceptTos,
  claimFirstAdmin,
  login,
  WrongCredentialsError,
} from "../../lib/admin/accounts.ts";
import { writeAudit } from "../../lib/admin/audit.ts";
import {
  attemptsOf,
  countAttempt,
  hitRateLimit,
  limitAddress,
  RATE_LIMITS,
  refundRateLimit,
  resetRateLimit,
} from "../../lib/admin/rate_limit.ts";
import { TOS_SUMMARY, TOS_VERSION } from "../../lib/admin/tos.ts";
import { publicUser } from "../../lib/admin/users.ts";
import type { LiveChallenge } from "../../lib/challenge/records.ts";
import { readLiveKind } from "../../lib/challenge/gate.ts";
import { clientIpOf } from "../../http/hono.ts";
import { keys } from "../../lib/store/keys.ts";
import { VERSION } from "../../lib/version.ts";
import { bearerOnly } from "../bearer.ts";
import { adminSecurity, errs, jsonBody, jsonOk } from "../schemas.ts";
import {
  AdminUserView,
  ChallengeResponse,
  GivenPassword,
  GivenUsername,
  NewAccountView,
  NewPassword,
  Ok,
  TosVersion,
  Username,
} from "./accounts_schemas.ts";
import {
  type AdminEnv,
  adminSession,
  audit,
  challengeUnavailable,
  clearSessionCookie,
  currentSession,
  dropPresentedSession,
  requireChallenge,
  signIn,
} from "./session.ts";
import { validationHook } from "../../http/validation.ts";

const bootstrapRoute = createRoute({
  method: "get",
  path: "/api/admin/bootstrap",
  summary: "Setup flags, version and terms-of-service state (public)",
  responses: {
    200: jsonOk(
      z.object({
        claimed: z.boolean().openapi({ description: "a first admin exists" }),
        setupComplete: z.boolean().openapi({
          description: "the edge step (a Cloudflare link or none) and a bot challenge are live",
        }),
        signedIn: z.boolean(),
        needsTos: z.boolean().openapi({
          description: "the signed-in admin must accept `tosVersion` before anything else",
        }),
        challengeRequired: z.boolean().openapi({
          description: "login, invite accept and recovery need a challenge response",
        }),
        challengeKind: z.enum(["turnstile", "builtin"]).nullable().openapi({
          description:
            "which challenge sign-in asks for (`builtin`: solve `/api/admin/challenge/puzzle`)",
        }),
        challengeSiteKey: z.string().optional().openapi({
          description: "public site key of the live bot-challenge widget (render it at sign-in)",
        }),
        version: z.string(),
        tosVersion: z.string(),
        tosSummary: z.string(),
        acceptedTosVersion: z.string().nullable().openapi({
          description: "of the signed-in admin; null when not signed in",
        }),
        me: AdminUserView.nullable(),
      }).openapi("AdminBootstrap"),
      "bootstrap flags",
    ),
  },
});

const claimRoute = createRoute({
  method: "post",
  path: "/api/admin/claim",
  summary: "Create the first admin, once (bearer TOKEN_SECRET); returns the recovery phrase once",
  description: "A wrong `acceptedTosVersion` is 403 `forbidden`; a second claim is 409 `conflict`.",
  security: [{ operatorBearer: [] }],
  request: {
    body: jsonBody(z.object({
      username: Username,
      password: NewPassword,
      acceptedTosVersion: TosVersion,
    })),
  },
  responses: {
    200: jsonOk(NewAccountView, "the admin, its recovery phrase; sets tg_admin"),
    ...errs(400, 401, 403, 409),
  },
});

const tosRoute = createRoute({
  method: "post",
  path: "/api/admin/tos/accept",
  summary: "Accept the current terms of service (allowed with a stale acceptance)",
  security: adminSecurity,
  request: { body: jsonBody(z.object({ acceptedTosVersion: TosVersion })) },
  responses: { 200: jsonOk(z.object({ user: AdminUserView }), "accepted"), ...errs(400, 401, 403) },
});

const loginRoute = createRoute({
  method: "post",
  path: "/api/admin/login",
  summary: "Sign in (20 failures per 15 min per IP; 5 per account, then the bot challenge)",
  description: "Over the per-address limit: 429 `rate_limited` with `Retry-After`, before any " +
    "password check. After 5 failed sign-ins of one account within 15 minutes, from any " +
    "address, that account's sign-in needs the bot challenge (401 `unauthorized` with " +
    "`details.challenge` `required` and `details.reason` `account_failures` without a solution); " +
    "failures on an account never make its correct password a 429. A session cookie the request " +
    "carried is ended (a new one is set).",
  request: {
    body: jsonBody(z.object({
      username: GivenUsername,
      password: GivenPassword,
      challengeResponse: ChallengeResponse,
    })),
  },
  responses: {
    200: jsonOk(z.object({ user: AdminUserView }), "signed in; sets tg_admin"),
    ...errs(400, 401, 429),
    ...challengeUnavailable,
  },
});

const logoutRoute = createRoute({
  method: "post",
  path: "/api/admin/logout",
  summary: "Sign out: ends the session and clears tg_admin",
  security: adminSecurity,
  responses: { 200: jsonOk(Ok, "signed out"), ...errs(401, 403) },
});

/** What the admin app needs first: claimed, set up, signed in, the ToS, the sign-in check. */
async function bootstrapOf(s: Services, c: Context) {
  const [claimed, edge, challenge, cur, challengeRequired, kind] = await Promise.all([
    s.kv.get(keys.adminClaimed()),
    s.kv.getMany([keys.edge(), keys.edgeNone()]),
    s.kv.get<LiveChallenge>(keys.challenge()),
    currentSession(s, c),
    s.challenge.configured(),
    readLiveKind(s.kv),
  ]);
  return {
    claimed: claimed.value !== null,
    setupComplete: edge.some((e) => e.value !== null) && kind !== null,
    signedIn: cur !== null,
    needsTos: cur !== null && cur.user.acceptedTosVersion !== TOS_VERSION,
    challengeRequired,
    challengeKind: kind,
    ...(challenge.value?.siteKey ? { challengeSiteKey: challenge.value.siteKey } : {}),
    version: VERSION,
    tosVersion: TOS_VERSION,
    tosSummary: TOS_SUMMARY,
    acceptedTosVersion: cur?.user.acceptedTosVersion ?? null,
    me: cur ? publicUser(cur.user) : null,
  };
}

/** Audits a sign-in limit tripping, as a step to run when it trips. */
type Tripped = (detail: Record<string, unknown>, action?: string) => () => Promise<void>;

/**
 * Failed logins are not audited one by one (a flood would push real actions out of the log); a
 * limit tripping is, once per window and subject.
 */
function loginTripped(s: Services, ip: string): Tripped {
  return (detail, action = "login.rate_limited") => async () => {
    await writeAudit(s.kv, s.clock, {
      actor: "anonymous",
      action,
      ip,
      detail,
    });
  };
}

/** The address limit, then the challenge, both before any password hashing. */
async function guardLogin(
  s: Services,
  ip: string,
  addr: string,
  account: string,
  challengeResponse: string | undefined,
  tripped: Tripped,
): Promise<void> {
  const { max, windowMs } = RATE_LIMITS.loginIp;
  await hitRateLimit(
    s.kv,
    s.clock,
    "loginIp",
    addr,
    tripped({ limit: "ip", max, windowMinutes: windowMs / 60_000 }),
  );
  // Failures on the account, from any address, ask for the challenge rather than a 429: a 429
  // would let anyone lock the admin out, and new addresses per try would walk past it.
  const failures = await attemptsOf(s.kv, s.clock, "loginAccount", account);
  const stepUp = failures >= RATE_LIMITS.loginAccount.max;
  try {
    await requireChallenge(s, challengeResponse, ip, { stepUp });
  } catch (e) {
    // Asked for a check it did not bring: no password was tried, and the app retries at once
    // with the check solved. Counting this one too spent the address's budget twice per try.
    if (stepUp && !challengeResponse?.trim()) await refundRateLimit(s.kv, s.clock, "loginIp", addr);
    throw e;
  }
}

/** Checks the password; a wrong one counts against the account (whose limit steps up). */
async function checkPassword(
  s: Services,
  username: string,
  password: string,
  account: string,
  tripped: Tripped,
) {
  try {
    return await login(s, { username, password });
  } catch (e) {
    if (e instanceof WrongCredentialsError) {
      const { count, wrote } = await countAttempt(s.kv, s.clock, "loginAccount", account);
      if (wrote && count === RATE_LIMITS.loginAccount.max) {
        await tripped({ limit: "account", username, max: count }, "login.challenge_required")();
      }
    }
    throw e;
  }
}

/** Bootstrap, claim, ToS, login and logout. */
export function authRoutes(s: Services) {
  const app = new OpenAPIHono<AdminEnv>({ defaultHook: validationHook });
  // Registered before the routes, so credentials are checked before the body is validated.
  app.use("/api/admin/claim", bearerOnly(s));
  app.use("/api/admin/tos/accept", adminSession(s, { allowStaleTos: true }));
  app.use("/api/admin/logout", adminSession(s, { allowStaleTos: true }));

  app.openapi(bootstrapRoute, async (c) => c.json(await bootstrapOf(s, c), 200));

  app.openapi(claimRoute, async (c) => {
    const body = c.req.valid("json");
    const out = await claimFirstAdmin(s, body);
    await signIn(s, c, out, "admin.claim", { username: out.user.username });
    return c.json({ user: out.user, recoveryPhrase: out.phrase }, 200);
  });

  app.openapi(tosRoute, async (c) => {
    const user = await acceptTos(s, c.get("admin").id, c.req.valid("json").acceptedTosVersion);
    await audit(s, c, "tos.accept", { tosVersion: user.acceptedTosVersion });
    return c.json({ user }, 200);
  });

  app.openapi(loginRoute, async (c) => {
    const { username, password, challengeResponse } = c.req.valid("json");
    const ip = clientIpOf(c, s.config);
    const addr = limitAddress(ip);
    const account = username.toLowerCase();
    const tripped = loginTripped(s, ip);
    await guardLogin(s, ip, addr, account, challengeResponse, tripped);
    const out = await checkPassword(s, username, password, account, tripped);
    await resetRateLimit(s.kv, s.clock, "loginAccount", account);
    await refundRateLimit(s.kv, s.clock, "loginIp", addr);
    await signIn(s, c, out, "session.login");
    return c.json({ user: out.user }, 200);
  });

  app.openapi(logoutRoute, async (c) => {
    await dropPresentedSession(s, c);
    clearSessionCookie(s, c);
    await audit(s, c, "session.logout");
    return c.json({ ok: true as const }, 200);
  });
  return app;
}
