/**
 * A place nobody loses: moving it to another device (`POST /resume/code`, `POST /resume`), the
 * e-mail at the turn (`POST /turn-email`, `DELETE /turn-email`) and more time for a click-to-enter
 * hold (`POST /enter/extend`). The domain is in lib/resume/, lib/notify/ and
 * lib/queue/hold_extend.ts; here the bodies are validated and the cookies written by the one HTTP
 * layer.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Services } from "./services.ts";
import { answerVisitor, clientIpOf, ticketOf } from "../http/hono.ts";
import { isSecureRequest } from "../http/cookies.ts";
import { validationHook } from "../http/validation.ts";
import { makeCode, redeemCode } from "../lib/resume/resume.ts";
import { checkHeld } from "../lib/resume/holder.ts";
import { checkTicket } from "../lib/queue/visitor.ts";
import { subscribe, unsubscribe } from "../lib/notify/subscribe.ts";
import { pickLang } from "../lib/i18n/negotiate.ts";
import { langHints } from "./pages/lang.ts";
import {
  EmailAddress,
  errors,
  jsonBody,
  jsonOk,
  PowSolution,
  QueueName,
  VisitorBody,
  VisitorView,
} from "./schemas.ts";
import { asciiEmail } from "../lib/notify/address.ts";
import { safeReturnPath } from "../lib/destination.ts";

const ResumeBody = z.object({
  queue: QueueName,
  code: z.string().max(32).openapi({
    description: "8 characters from 2-9 and A-Z without I and O; case, spaces and dashes ignored",
    example: "K7PX-M2QD",
  }),
  proof: PowSolution.optional().openapi({
    description: "the solved proof-of-work challenge, while the queue is over its budget of " +
      "wrong codes (the 403 `challenge_required` answer carries it in `details.challenge`)",
  }),
}).openapi("ResumeBody");

const QueueBody = z.object({ queue: QueueName }).openapi("QueueRef");

const ResumeCode = z.object({
  queue: z.string(),
  code: z.string().openapi({ description: "as shown: two groups of four (`K7PX-M2QD`)" }),
  link: z.string().openapi({ description: "opens the waiting room with the code filled in" }),
}).openapi("ResumeCode");

const TurnEmailBody = z.object({
  queue: QueueName,
  email: EmailAddress("email"),
  return: z.string().max(2048).refine((p) => safeReturnPath(p) !== null, {
    message: "must be a path on this site (starting with a single /)",
  }).optional().openapi({
    description: "the page the visitor asked for: the e-mail's link lands there at the turn",
    example: "/shop?item=7",
  }),
}).openapi("TurnEmailBody");

const refused = {
  description: "a wrong, used or expired code, or one for another queue " +
    "(`resume_code_invalid`, `details.reason`: unknown, other_queue, place_ended); nothing changed",
  content: errors[404].content,
};

const resumeRoute = createRoute({
  method: "post",
  path: "/resume",
  summary: "Move a place to this browser or client with its resume code",
  description: "The code's place (waiting, or admitted and not entered yet) moves here: the " +
    "answer sets `tg_ticket` (and `tg_access` when it enters at once). The browser that held it " +
    "is answered 409 `place_moved` from its next due check-in on. A code works once and ends " +
    "with its place. Wrong codes are limited per address (IPv6 by /64; 10 per 10 min), then 429 " +
    "`rate_limited` with `Retry-After`. Past 120 wrong codes a minute in the queue (from all " +
    "addresses), every try needs a solved proof-of-work challenge (`proof`, about a million " +
    "SHA-256 tries): 403 `challenge_required` without one, `challenge_failed` for a wrong or used " +
    "one, each with a fresh challenge in `details.challenge` (the same challenge as joins').",
  request: { body: jsonBody(ResumeBody) },
  responses: {
    200: jsonOk(VisitorView, "the place, now held here; sets tg_ticket"),
    400: errors[400],
    403: {
      description: "the queue is over its budget of wrong codes: `challenge_required` (send " +
        "`proof`) or `challenge_failed` (`details.reason`); a fresh challenge in " +
        "`details.challenge`",
      content: errors[403].content,
    },
    404: refused,
    429: errors[429],
  },
});

const codeRoute = createRoute({
  method: "post",
  path: "/resume/code",
  summary: "A resume code for the place this browser holds (tg_ticket)",
  description: "Each call makes a new code and voids the one made before; at most one every 3 s.",
  request: { body: jsonBody(QueueBody) },
  responses: {
    200: jsonOk(ResumeCode, "the code and its link"),
    400: errors[400],
    401: errors[401],
    404: refused,
    409: {
      description: "this browser's place was moved to another device (`place_moved`)",
      content: errors[409].content,
    },
    429: errors[429],
  },
});

const mailRoute = createRoute({
  method: "post",
  path: "/turn-email",
  summary: "E-mail me when it's my turn",
  description: "Keeps the address (sealed) until the e-mail is sent or the place ends, then " +
    "deletes it. Sent once, at admission or at the place the operator set (MAIL_AT_POSITION), " +
    "with a resume link (under PUBLIC_URL; without it the code only), in the language of the " +
    "visitor's page (the `tg_lang` cookie, else `Accept-Language`, else English). 404 " +
    "`not_found` when the service has no SMTP server; 429 `rate_limited` past 3 requests an " +
    "hour for one recipient (from any place or address; case and a `+tag` ignored).",
  request: { body: jsonBody(TurnEmailBody) },
  responses: {
    200: jsonOk(z.object({ queue: z.string(), email: z.literal("saved") }), "saved"),
    400: errors[400],
    401: errors[401],
    404: errors[404],
    409: errors[409],
    429: errors[429],
  },
});

const unmailRoute = createRoute({
  method: "delete",
  path: "/turn-email",
  summary: "Take back the e-mail request (the address is deleted)",
  request: { body: jsonBody(QueueBody) },
  responses: {
    200: jsonOk(z.object({ queue: z.string(), email: z.literal("deleted") }), "deleted"),
    400: errors[400],
    401: errors[401],
    409: errors[409],
  },
});

const heldRoute = createRoute({
  method: "get",
  path: "/resume/held",
  summary: "Whether this browser still holds its place (one round trip, no write)",
  description: "For a page that shows a code: it learns at once that the code was used, or " +
    "that the place ended, without waiting for its next due check-in.",
  request: { query: z.object({ queue: QueueName }) },
  responses: {
    200: jsonOk(z.object({ queue: z.string(), held: z.literal(true) }), "still held here"),
    400: errors[400],
    401: errors[401],
    404: {
      description: "the place ended: left, dropped after missed check-ins, or its turn or " +
        "session ran out (`not_in_queue`); joining again takes a new place at the back",
      content: errors[404].content,
    },
    409: {
      description: "the place was moved to another device (`place_moved`)",
      content: errors[409].content,
    },
  },
});

const extendRoute = createRoute({
  method: "post",
  path: "/enter/extend",
  summary: "I need more time: extend a click-to-enter hold by its length",
  description: "At most 10 times per hold (WCAG 2.2.1); one write. The answer is the admitted " +
    "view with the later `enterBy` and `holdExtensionsLeft`.",
  request: { body: jsonBody(VisitorBody) },
  responses: {
    200: jsonOk(
      VisitorView.extend({ holdExtensionsLeft: z.number().int() }),
      "extended: the new `enterBy`",
    ),
    400: errors[400],
    401: errors[401],
    404: errors[404],
    409: {
      description: "still waiting (`not_admitted`), no click-to-enter, entered already or no " +
        "extension left (`conflict`), or the place moved to another device (`place_moved`)",
      content: errors[409].content,
    },
  },
});

/** The public address of the service as the visitor reached it (PUBLIC_URL wins), with BASE_PATH. */
export function siteOf(c: Context, s: Services): string {
  let origin: string;
  if (s.config.PUBLIC_URL) origin = new URL(s.config.PUBLIC_URL).origin;
  else {
    const url = new URL(c.req.url);
    origin = `${isSecureRequest(c.req.raw) ? "https:" : url.protocol}//${url.host}`;
  }
  return origin + (s.config.BASE_PATH ?? "");
}

/** The resume and turn e-mail routes. */
export function resumeRoutes(s: Services) {
  const app = new OpenAPIHono({ defaultHook: validationHook });

  app.openapi(resumeRoute, async (c) => {
    const { queue, code, proof } = c.req.valid("json");
    const current = await ticketOf(c, s.signer, queue);
    const out = await redeemCode(s, queue, code, clientIpOf(c, s.config), current, proof);
    answerVisitor(c, s, queue, out);
    return c.json(out.view, 200);
  });

  app.openapi(codeRoute, async (c) => {
    const { queue } = c.req.valid("json");
    const { code, shown } = await makeCode(s, queue, await ticketOf(c, s.signer, queue));
    const link = `${siteOf(c, s)}/wait?queue=${encodeURIComponent(queue)}&resume=${code}`;
    return c.json({ queue, code: shown, link }, 200);
  });

  app.openapi(mailRoute, async (c) => {
    const { queue, email, return: asked } = c.req.valid("json");
    // The e-mail speaks the waiting page's language: the visitor's cookie, else its browser's.
    const { lang } = pickLang({ ...langHints(c), query: null });
    const to = asciiEmail(email)!; // validated: an IDN domain goes out as punycode
    const back = safeReturnPath(asked) ?? "";
    await subscribe(s, queue, await ticketOf(c, s.signer, queue), to, lang, back);
    return c.json({ queue, email: "saved" as const }, 200);
  });

  app.openapi(unmailRoute, async (c) => {
    const { queue } = c.req.valid("json");
    await unsubscribe(s, queue, await ticketOf(c, s.signer, queue));
    return c.json({ queue, email: "deleted" as const }, 200);
  });

  app.openapi(heldRoute, async (c) => {
    const { queue } = c.req.valid("query");
    const t = checkTicket(queue, await ticketOf(c, s.signer, queue));
    await checkHeld(s.kv, queue, t, s.clock.now());
    return c.json({ queue, held: true as const }, 200);
  });

  app.openapi(extendRoute, async (c) => {
    const { queue, visitorId } = c.req.valid("json");
    const ticket = await ticketOf(c, s.signer, queue);
    return c.json(await s.engine.extendHold(queue, ticket, visitorId), 200);
  });

  return app;
}
