import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Services } from "./services.ts";
import { joinStatus, joinWithAccess } from "../lib/access/join.ts";
import { answerVisitor, requesterOfContext, ticketOf as readTicket } from "../http/hono.ts";
import {
  accessOfOtherQueues,
  clearedCookie,
  cookieValues,
  isSecureRequest,
  ticketCookie,
  ticketCookieValue,
} from "../http/cookies.ts";
import type { VisitorView as View } from "../lib/queue/types.ts";
import {
  ChallengeDetails,
  errors,
  JoinBody,
  jsonBody,
  jsonOk,
  QueueName,
  VisitorBody,
  VisitorId,
  VisitorView,
} from "./schemas.ts";
import { validationHook } from "../http/validation.ts";

const joinRoute = createRoute({
  method: "post",
  path: "/join",
  summary: "Join a queue (or resume by tg_ticket)",
  request: { body: jsonBody(JoinBody) },
  responses: {
    200: jsonOk(
      VisitorView,
      "admitted at once (an allowlisted IP always is, taking no slot; so is everyone while the " +
        "room is in passthrough, counted); sets tg_access and tg_ticket",
    ),
    202: jsonOk(VisitorView, "waiting; sets tg_ticket"),
    400: errors[400],
    401: errors[401],
    403: {
      description: "the visitor's country is blocked (`geo_blocked`); the queue's bot challenge " +
        "needs an answer (`challenge_required`, the challenge in `details.challenge`, a Turnstile " +
        "site key in `details.turnstile`) or refused one (`challenge_failed`, `details.reason`: " +
        "malformed, forged, expired, replayed, wrong_scope, wrong_purpose, too_easy, not_solved, " +
        "turnstile; a fresh challenge in `details.challenge`); the queue needs an enqueue token " +
        "(`enqueue_token_required`) or refused one (`enqueue_token_invalid`, `details.reason`: " +
        "malformed, forged, expired, wrong_queue); a `priorityCode` was refused " +
        "(`priority_code_invalid`, `details.reason`: malformed, unknown, expired, revoked, " +
        "used_up; nothing counted). See docs/abuse.md and docs/traffic-policy.md.",
      content: errors[403].content,
    },
    404: errors[404],
    429: {
      description: "too many new places from this client's address (`rate_limited`, with " +
        "`Retry-After`; `details.limitPerMinute`): the queue's per-client join limit",
      content: errors[429].content,
    },
    503: {
      description: "waiting-row cap reached (`queue_full`), the queue needs enqueue tokens " +
        "and the service has no ENQUEUE_SECRET (`enqueue_token_unavailable`), the operator " +
        "closed the room (`room_closed`, with `Retry-After`; `details.message` is the " +
        "operator's text), or a pre-queue's window has not opened yet (`not_open`)",
      content: errors[503].content,
    },
  },
});

const StatusQuery = z.object({ queue: QueueName, visitorId: VisitorId.optional() });
const statusRoute = createRoute({
  method: "get",
  path: "/status",
  summary: "Current visitor status (visitor from tg_ticket)",
  request: { query: StatusQuery },
  responses: {
    200: jsonOk(VisitorView, "waiting or admitted"),
    400: errors[400],
    401: errors[401],
    404: errors[404],
  },
});

const heartbeatRoute = createRoute({
  method: "post",
  path: "/heartbeat",
  summary: "Keep a waiting visitor alive; answers like status",
  request: { body: jsonBody(VisitorBody) },
  responses: {
    200: jsonOk(VisitorView, "waiting or admitted"),
    400: errors[400],
    401: errors[401],
    404: errors[404],
  },
});

const enterRoute = createRoute({
  method: "post",
  path: "/enter",
  summary: "Confirm a click-to-enter admission",
  request: { body: jsonBody(VisitorBody) },
  responses: {
    200: jsonOk(VisitorView, "entered; carries accessToken and sets tg_access"),
    400: errors[400],
    401: errors[401],
    404: errors[404],
    409: errors[409],
  },
});

const leaveRoute = createRoute({
  method: "post",
  path: "/leave",
  summary: "Leave the queue, freeing the place or slot",
  request: { body: jsonBody(VisitorBody) },
  responses: {
    200: jsonOk(z.object({ status: z.literal("left") }), "left (also when already gone)"),
    400: errors[400],
    401: errors[401],
    404: errors[404],
  },
});

/** The visitor API. */
export function visitorRoutes(s: Services) {
  const app = new OpenAPIHono({ defaultHook: validationHook });
  const ticketOf = (c: Context, queue: string) => readTicket(c, s.signer, queue);
  /** Sets the cookies of a visitor call, nudges the admission tick, returns the view. */
  const answer = (c: Context, queue: string, out: { view: View; ticket?: string }) => {
    answerVisitor(c, s, queue, out);
    return out.view;
  };

  app.openapi(joinRoute, async (c) => {
    const { queue, visitorId, ...proofs } = c.req.valid("json");
    const out = await joinWithAccess(
      s,
      queue,
      await ticketOf(c, queue),
      visitorId,
      requesterOfContext(c, s.config),
      proofs,
    );
    return c.json(answer(c, queue, out), joinStatus(out.view));
  });

  // The hottest call of all (every waiter, every timeslot): validated by hand with the same
  // schema instead of the validator middleware, which costs more than the status itself.
  app.openAPIRegistry.registerPath(statusRoute);
  // The shape of the challenge in a refused join's `details` (pinned for API clients).
  app.openAPIRegistry.register("ChallengeDetails", ChallengeDetails);
  app.get("/status", async (c) => {
    // `createApp().fetch` serves this call on its fast path; here it is answered the plain way
    // (what the fast path declines, and `app.request()`), which its tests compare against.
    const parsed = StatusQuery.safeParse({
      queue: c.req.query("queue"),
      visitorId: c.req.query("visitorId"),
    });
    if (!parsed.success) return validationHook({ ...parsed, target: "query" }, c)!;
    const { queue, visitorId } = parsed.data;
    return c.json(
      answer(c, queue, await s.engine.status(queue, await ticketOf(c, queue), visitorId)),
      200,
    );
  });

  app.openapi(heartbeatRoute, async (c) => {
    const { queue, visitorId } = c.req.valid("json");
    return c.json(
      answer(c, queue, await s.engine.heartbeat(queue, await ticketOf(c, queue), visitorId)),
      200,
    );
  });

  app.openapi(enterRoute, async (c) => {
    const { queue, visitorId } = c.req.valid("json");
    return c.json(
      answer(c, queue, await s.engine.enter(queue, await ticketOf(c, queue), visitorId)),
      200,
    );
  });

  app.openapi(leaveRoute, async (c) => {
    const { queue, visitorId } = c.req.valid("json");
    // No ticket of this queue (none at all, or only other queues' valid ones): the visitor already
    // left it (the first leave took its ticket); not an error. An invalid ticket still is (401).
    const ticket = await ticketOf(c, queue);
    const left = ticket ? ticket.queue !== queue : cookieValues(c.req.header("cookie"), "tg_ticket")
      .length === 0;
    if (!left) await s.engine.leave(queue, ticket, visitorId);
    const secure = isSecureRequest(c.req.raw);
    // Only this queue's: the places and admissions the browser holds in other queues stay.
    const cookie = c.req.header("cookie");
    c.header("Set-Cookie", ticketCookie(ticketCookieValue(cookie, queue, ""), secure), {
      append: true,
    });
    if (!accessOfOtherQueues(cookie, queue)) {
      c.header("Set-Cookie", clearedCookie("tg_access", secure), { append: true });
    }
    return c.json({ status: "left" as const }, 200);
  });

  return app;
}
