/**
 * The turn e-mail's SMTP settings in the admin app: `GET`/`PUT /api/admin/mail` (the password is
 * write-only: sealed when saved, never returned, never in the audit log) and `POST
 * /api/admin/mail/test`, which sends one e-mail through the settings in force and says whether
 * the server took it. Saved settings win over the SMTP_* variables; an empty host deletes them.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Services } from "../services.ts";
import { readMailSettings, saveMailSettings, SMTP_TLS_MODES } from "../../lib/notify/settings.ts";
import { adminSecurity, EmailAddress, errs, jsonBody, jsonOk } from "../schemas.ts";
import { asciiEmail } from "../../lib/notify/address.ts";
import { type AdminEnv, adminSession, audit } from "./session.ts";
import { validationHook } from "../../http/validation.ts";
import { assertSmtpSavable } from "../../lib/notify/smtp_target.ts";

const MailSettingsView = z.object({
  source: z.enum(["admin", "env", "none"]).openapi({
    description: "where the settings in force come from: saved here, SMTP_* variables, nowhere",
  }),
  host: z.string(),
  port: z.number().int(),
  tls: z.enum(SMTP_TLS_MODES),
  user: z.string(),
  from: z.string(),
  atPosition: z.number().int().openapi({
    description: "send at this place in line; 0: when admitted",
  }),
  hasPassword: z.boolean().openapi({ description: "a password is set (never returned)" }),
}).openapi("MailSettings");

const MailSettingsInput = z.object({
  host: z.string().max(253).regex(/^$|^[A-Za-z0-9.:\[\]-]+$/, {
    message: "host must be a host name or address (empty: use the SMTP_* variables)",
  }),
  port: z.number().int().min(1).max(65535),
  tls: z.enum(SMTP_TLS_MODES),
  user: z.string().max(256),
  password: z.string().min(1).max(512).nullable().optional().openapi({
    description: "a string sets the password, null clears it, omitted keeps it",
  }),
  from: z.string().max(320).regex(/^$|^[^\r\n]+@[^\r\n]+$/, {
    message: "from must be an address, with an optional name (`Name <a@example.com>`)",
  }),
  atPosition: z.number().int().min(0).max(1_000_000),
}).openapi("MailSettingsInput");

const getRoute = createRoute({
  method: "get",
  path: "/api/admin/mail",
  summary: "SMTP settings of the turn e-mail (never the password)",
  security: adminSecurity,
  responses: { 200: jsonOk(MailSettingsView, "the settings in force"), ...errs(401, 403) },
});

const putRoute = createRoute({
  method: "put",
  path: "/api/admin/mail",
  summary: "Save the SMTP settings of the turn e-mail (an empty host goes back to SMTP_*)",
  security: adminSecurity,
  request: { body: jsonBody(MailSettingsInput) },
  responses: { 200: jsonOk(MailSettingsView, "the settings in force"), ...errs(400, 401, 403) },
});

const testRoute = createRoute({
  method: "post",
  path: "/api/admin/mail/test",
  summary: "Send a test e-mail through the settings in force",
  security: adminSecurity,
  request: { body: jsonBody(z.object({ to: EmailAddress("to") })) },
  responses: {
    200: jsonOk(
      z.object({ sent: z.boolean(), error: z.string().optional() }),
      "whether the SMTP server took it (the error names no setting)",
    ),
    ...errs(400, 401, 403),
  },
});

/** The turn e-mail's settings under /api/admin. */
export function mailRoutes(s: Services) {
  const app = new OpenAPIHono<AdminEnv>({ defaultHook: validationHook });
  const session = adminSession(s);
  for (const p of ["/api/admin/mail", "/api/admin/mail/test"]) app.use(p, session);

  app.openapi(getRoute, async (c) => c.json(await readMailSettings(s.kv, s.config), 200));

  app.openapi(putRoute, async (c) => {
    const b = c.req.valid("json");
    if (b.host) await assertSmtpSavable(s.config, b.host, b.port, c.req.url);
    const view = await saveMailSettings(s.kv, s.config, b);
    await s.mail.refresh(true);
    await audit(s, c, "mail.save", {
      source: view.source,
      host: view.host,
      port: view.port,
      tls: view.tls,
      atPosition: view.atPosition,
      // Not named `pass…`: the audit scrubber drops such fields, and this one says none.
      signInChange: b.password === undefined ? "kept" : b.password === null ? "cleared" : "set",
    });
    return c.json(view, 200);
  });

  app.openapi(testRoute, async (c) => {
    const { to } = c.req.valid("json");
    await s.mail.refresh(true);
    const mailer = s.mail.mailer;
    let out: { sent: boolean; error?: string };
    if (!mailer) out = { sent: false, error: "no SMTP server and sender are set" };
    else {
      try {
        await mailer.send({
          to: asciiEmail(to)!, // validated: an IDN domain goes out as punycode
          subject: "Tollgate: test e-mail",
          text: "The waiting room can send e-mail through these settings.",
        });
        out = { sent: true };
      } catch (e) {
        out = { sent: false, error: (e as Error).message };
      }
    }
    await audit(s, c, "mail.test", { sent: out.sent });
    return c.json(out, 200);
  });

  return app;
}
