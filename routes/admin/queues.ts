import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Services } from "../services.ts";
import { validationHook } from "../../http/validation.ts";
import { releaseQueuePlace, takeQueuePlace } from "../../lib/admin/queue_cap.ts";
import { requireNameFree, resumeQueueDeletions } from "../../lib/queue/remove.ts";
import { keys } from "../../lib/store/keys.ts";
import { forgetMailRequests } from "../../lib/notify/subscribe.ts";
import {
  adminSecurity,
  errors,
  errs,
  jsonBody,
  jsonOk,
  ModeSchema,
  QueueName,
} from "../schemas.ts";
import { closedObject } from "../closed_object.ts";
import { type AdminEnv, adminSession, audit } from "./session.ts";
import { MAX_QUEUES, QueueSettingsView, settingsView } from "./settings.ts";
import type { QueueTombstone } from "../../lib/queue/remove.ts";

const QueueListItem = QueueSettingsView.extend({
  waiting: z.number().int().openapi({ description: "visitors waiting now" }),
  holding: z.number().int(),
  entered: z.number().int(),
  inConfig: z.boolean().openapi({
    description: "named in QUEUES: deleting it brings it back at the next start",
  }),
}).openapi("AdminQueueListItem");

const listRoute = createRoute({
  method: "get",
  path: "/api/admin/queues",
  summary: "List queues with their settings and live counts, and deleted names not free yet",
  security: adminSecurity,
  responses: {
    200: jsonOk(
      z.object({
        queues: z.array(QueueListItem),
        deleted: z.array(z.object({ queue: z.string(), reusableAt: z.number().int() })),
      }),
      "queues",
    ),
    ...errs(401, 403),
  },
});

const createQueueRoute = createRoute({
  method: "post",
  path: "/api/admin/queues",
  summary: "Create a queue (idempotent) with its mode, rate and capacity",
  description: "On a queue that exists, sets the mode, rate and capacity given. At most " +
    `${MAX_QUEUES} queues (those named in QUEUES count too): a new name beyond that is 400 ` +
    "`bad_request`. A deleted queue's name is 409 `conflict` until its last access token " +
    "expired (`deleted[].reusableAt` in the list).",
  security: adminSecurity,
  request: {
    body: jsonBody(closedObject({
      name: QueueName,
      mode: ModeSchema.optional(),
      admitPerSecond: z.number().min(0.1).max(100000).optional(),
      capacity: z.number().int().min(1).max(10_000_000).optional(),
    })),
  },
  responses: {
    200: jsonOk(QueueSettingsView, "the queue's settings"),
    ...errs(400, 401, 403),
    409: { description: "the name was deleted and is not free yet", content: errors[409].content },
  },
});

const deleteRoute = createRoute({
  method: "delete",
  path: "/api/admin/queues/{name}",
  summary: "Delete a queue; refused while visitors wait unless `force=1`",
  description: "The queue is gone at once (joins answer 404); its records are removed in " +
    "chunks, resumed after a crash. The name is free again at `reusableAt` (when the last " +
    "access token has expired). A queue named in QUEUES comes back at the next start after " +
    "that (`inConfig`). The last queue cannot be deleted.",
  security: adminSecurity,
  request: {
    params: z.object({ name: QueueName }),
    query: z.object({ force: z.enum(["0", "1"]).optional() }),
  },
  responses: {
    200: jsonOk(
      z.object({
        queue: z.string(),
        removedWaiting: z.number().int(),
        reusableAt: z.number().int(),
        inConfig: z.boolean(),
      }).openapi("QueueDeleted"),
      "deleted",
    ),
    ...errs(401, 403, 404),
    409: {
      description: "visitors wait (`details.waiting`), or it is the last queue",
      content: errors[409].content,
    },
  },
});

/** Creating, listing and deleting queues from the control room. */
export function queueRoutes(s: Services) {
  const app = new OpenAPIHono<AdminEnv>({ defaultHook: validationHook });
  app.use("/api/admin/queues", adminSession(s));
  app.use("/api/admin/queues/*", adminSession(s));

  app.openapi(listRoute, async (c) => {
    await resumeQueueDeletions(s.engine.ctx);
    const queues = [];
    for (const q of await s.engine.queueNames()) {
      const [set, m] = await Promise.all([s.engine.settings(q), s.engine.metrics(q)]);
      queues.push({
        ...settingsView(s, set),
        waiting: m.waiting,
        holding: m.holding,
        entered: m.entered,
        inConfig: s.config.QUEUES.includes(q),
      });
    }
    const now = s.clock.now();
    const deleted = [];
    for await (const e of s.kv.list<QueueTombstone>({ prefix: keys.queueTombstones() })) {
      if (e.value.reusableAt > now) {
        deleted.push({ queue: e.key[1] as string, reusableAt: e.value.reusableAt });
      }
    }
    return c.json({ queues, deleted }, 200);
  });

  app.openapi(createQueueRoute, async (c) => {
    const b = c.req.valid("json");
    const isNew = !(await s.engine.queueNames()).includes(b.name);
    // A new name takes a place under the cap first: two creates at 99 queues make one, not two.
    if (isNew) await takeQueuePlace(s.kv, s.clock, b.name, MAX_QUEUES);
    try {
      if (isNew) await requireNameFree(s.kv, b.name, s.clock.now());
      await s.engine.ensureQueues([b.name]);
    } finally {
      if (isNew) await releaseQueuePlace(s.kv, b.name);
    }
    if (b.mode) await s.engine.setMode(b.name, b.mode);
    if (b.admitPerSecond !== undefined) await s.engine.setRate(b.name, b.admitPerSecond);
    if (b.capacity !== undefined) await s.engine.setCapacity(b.name, b.capacity);
    const out = await s.engine.settings(b.name);
    await audit(s, c, "queue.create", {
      queue: b.name,
      mode: out.mode,
      admitPerSecond: out.admitPerSecond,
      capacity: out.capacity,
    });
    return c.json(settingsView(s, out), 200);
  });

  app.openapi(deleteRoute, async (c) => {
    const { name } = c.req.valid("param");
    const force = c.req.valid("query").force === "1";
    const out = await s.engine.deleteQueue(name, force);
    // Its room switch and path rules go with it (a queue made again under the name starts plain).
    await s.rooms.forget(name);
    // Its visitors' e-mail addresses too: their places ended with it (docs/privacy.md).
    await forgetMailRequests(s.kv, name);
    await audit(s, c, "queue.delete", { queue: name, force, removedWaiting: out.removedWaiting });
    return c.json({ ...out, inConfig: s.config.QUEUES.includes(name) }, 200);
  });
  return app;
}
