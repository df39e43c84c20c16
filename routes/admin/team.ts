import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Services } from "../services.ts";
import { acceptInvite } from "../../lib/admin/accounts.ts";
import { listAudit } from "../../lib/admin/audit.ts";
import { createInvite, listInvites, revokeInvite } from "../../lib/admin/invites.ts";
import { revokeUserSessions } from "../../lib/admin/sessions.ts";
import { listUsers, removeUser } from "../../lib/admin/users.ts";
import { NotFoundError } from "../../lib/errors.ts";
import { adminSecurity, errs, jsonBody, jsonOk } from "../schemas.ts";
import {
  AdminUserView,
  AuditView,
  ChallengeResponse,
  InviteView,
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
  publicGate,
  signIn,
} from "./session.ts";
import { validationHook } from "../../http/validation.ts";

const IdParam = z.object({ id: z.string().min(1).max(64) });

const usersRoute = createRoute({
  method: "get",
  path: "/api/admin/users",
  summary: "The team: every admin",
  security: adminSecurity,
  responses: {
    200: jsonOk(z.object({ users: z.array(AdminUserView) }), "admins"),
    ...errs(401, 403),
  },
});

const removeUserRoute = createRoute({
  method: "delete",
  path: "/api/admin/users/{id}",
  summary: "Remove another admin (not yourself: 403; not the last: 409); ends their sessions " +
    "and deletes the invites they created",
  security: adminSecurity,
  request: { params: IdParam },
  responses: { 200: jsonOk(Ok, "removed"), ...errs(401, 403, 404, 409) },
});

const invitesRoute = createRoute({
  method: "get",
  path: "/api/admin/invites",
  summary: "Pending invites (no tokens)",
  security: adminSecurity,
  responses: {
    200: jsonOk(z.object({ invites: z.array(InviteView) }), "pending invites"),
    ...errs(401, 403),
  },
});

const createInviteRoute = createRoute({
  method: "post",
  path: "/api/admin/invites",
  summary: "Create a 72-hour invite; the token and accept URL are returned this once",
  security: adminSecurity,
  responses: {
    200: jsonOk(
      z.object({
        invite: InviteView,
        acceptUrl: z.string().openapi({ example: "/admin?invite=3q2-7wX..." }),
        token: z.string(),
      }),
      "the new invite",
    ),
    ...errs(401, 403),
  },
});

const revokeInviteRoute = createRoute({
  method: "delete",
  path: "/api/admin/invites/{id}",
  summary: "Revoke a pending invite",
  security: adminSecurity,
  request: { params: IdParam },
  responses: { 200: jsonOk(Ok, "revoked"), ...errs(401, 403, 404) },
});

const acceptRoute = createRoute({
  method: "post",
  path: "/api/admin/invites/accept",
  summary: "Accept an invite: creates the admin and a session (5 per hour per IP)",
  description: "An unknown, used, revoked or expired invite, or one whose creator is no longer " +
    "an admin, is 401 `unauthorized`; a taken " +
    "username (case-insensitive) is 409 `conflict`; a wrong ToS version is 403 `forbidden`.",
  request: {
    body: jsonBody(z.object({
      token: z.string().min(1).max(256),
      username: Username,
      password: NewPassword,
      acceptedTosVersion: TosVersion,
      challengeResponse: ChallengeResponse,
    })),
  },
  responses: {
    200: jsonOk(NewAccountView, "the new admin and its recovery phrase; sets tg_admin"),
    ...errs(400, 401, 403, 409, 429),
    ...challengeUnavailable,
  },
});

const auditRoute = createRoute({
  method: "get",
  path: "/api/admin/audit",
  summary: "Recent admin activity, newest first",
  security: adminSecurity,
  request: {
    query: z.object({
      limit: z.coerce.number().int().min(1).max(500).default(100).openapi({
        description: "1 to 500 (default 100)",
      }),
    }),
  },
  responses: {
    200: jsonOk(z.object({ entries: z.array(AuditView) }), "entries"),
    ...errs(400, 401, 403),
  },
});

/** Team, invites and the audit log. */
export function teamRoutes(s: Services) {
  const app = new OpenAPIHono<AdminEnv>({ defaultHook: validationHook });
  const session = adminSession(s);
  // The accept call is public; every other path here needs a session.
  app.use("/api/admin/invites/:id", async (c, next) => {
    if (c.req.param("id") === "accept" && c.req.method === "POST") return await next();
    return await session(c, next);
  });
  for (const p of ["/api/admin/users", "/api/admin/users/*", "/api/admin/invites"]) {
    app.use(p, session);
  }
  app.use("/api/admin/audit", session);

  app.openapi(usersRoute, async (c) => c.json({ users: await listUsers(s.kv) }, 200));

  app.openapi(removeUserRoute, async (c) => {
    const { id } = c.req.valid("param");
    const { user, invitesDeleted } = await removeUser(s.kv, c.get("admin").id, id);
    await revokeUserSessions(s.kv, user.id);
    await audit(s, c, "user.remove", { userId: user.id, username: user.username, invitesDeleted });
    return c.json({ ok: true as const }, 200);
  });

  app.openapi(
    invitesRoute,
    async (c) => c.json({ invites: await listInvites(s.kv, s.clock.now()) }, 200),
  );

  app.openapi(createInviteRoute, async (c) => {
    const { invite, token } = await createInvite(s, c.get("admin"));
    await audit(s, c, "invite.create", { inviteId: invite.id, expiresAt: invite.expiresAt });
    return c.json(
      { invite, acceptUrl: `${s.config.BASE_PATH ?? ""}/admin?invite=${token}`, token },
      200,
    );
  });

  app.openapi(revokeInviteRoute, async (c) => {
    const { id } = c.req.valid("param");
    if (!(await revokeInvite(s.kv, id))) {
      throw new NotFoundError("not_found", `no pending invite with id "${id}"`);
    }
    await audit(s, c, "invite.revoke", { inviteId: id });
    return c.json({ ok: true as const }, 200);
  });

  app.openapi(acceptRoute, async (c) => {
    const b = c.req.valid("json");
    await publicGate(s, c, "invite", b.challengeResponse);
    const out = await acceptInvite(s, {
      token: b.token,
      username: b.username,
      password: b.password,
      acceptedTosVersion: b.acceptedTosVersion,
    });
    await signIn(s, c, out, "invite.accept", { userId: out.user.id, username: out.user.username });
    return c.json({ user: out.user, recoveryPhrase: out.phrase }, 200);
  });

  app.openapi(auditRoute, async (c) => {
    const { limit } = c.req.valid("query");
    return c.json({ entries: await listAudit(s.kv, limit) }, 200);
  });
  return app;
}
