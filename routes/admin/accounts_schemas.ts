import { z } from "@hono/zod-openapi";
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "../../lib/admin/passwords.ts";
import { USERNAME_RE } from "../../lib/admin/users.ts";

export const Username = z.string().regex(USERNAME_RE, {
  message:
    "username must be 3 to 32 letters, digits, '.', '_' or '-', starting with a letter or digit",
}).openapi({ example: "alice" });

/** A password being set: the password rules. */
export const NewPassword = z.string()
  .min(MIN_PASSWORD_LENGTH, { message: `must be at least ${MIN_PASSWORD_LENGTH} characters` })
  .max(MAX_PASSWORD_LENGTH, { message: `must be at most ${MAX_PASSWORD_LENGTH} characters` })
  .openapi({ example: "correct horse battery" });

/** A password being checked: any length (the stored hash decides), but bounded. */
export const GivenPassword = z.string().min(1).max(MAX_PASSWORD_LENGTH);

/** Any username typed at sign-in (format not enforced: a wrong one simply fails). */
export const GivenUsername = z.string().min(1).max(64);

export const TosVersion = z.string().min(1).max(64).openapi({
  description: "must equal the current `tosVersion` (see bootstrap)",
  example: "2026-11-01",
});

export const ChallengeResponse = z.string().max(4096).optional().openapi({
  description: "bot-challenge answer, required once a challenge is configured: the Turnstile " +
    "token, or for the built-in check the JSON text of `{challenge, nonce}` (a puzzle from " +
    "`GET /api/admin/challenge/puzzle` and a nonce solving it; docs/rooms.md)",
});

export const AdminUserView = z.object({
  id: z.string(),
  username: z.string(),
  createdAt: z.number().int().openapi({ description: "unix ms" }),
  acceptedTosVersion: z.string(),
}).openapi("AdminUser");

export const InviteView = z.object({
  id: z.string(),
  createdAt: z.number().int().openapi({ description: "unix ms" }),
  expiresAt: z.number().int().openapi({ description: "unix ms; 72 h after creation" }),
  createdBy: z.string(),
}).openapi("AdminInvite");

export const AuditView = z.object({
  id: z.string(),
  at: z.number().int().openapi({ description: "unix ms" }),
  actor: z.string().openapi({ description: 'admin username, "bearer" or "anonymous"' }),
  action: z.string(),
  ip: z.string(),
  detail: z.record(z.string(), z.unknown()),
}).openapi("AuditEntry");

export const NewAccountView = z.object({
  user: AdminUserView,
  recoveryPhrase: z.string().openapi({
    description: "12 words; shown this once, store it offline",
  }),
}).openapi("NewAdminAccount");

export const Ok = z.object({ ok: z.literal(true) }).openapi("Ok");
