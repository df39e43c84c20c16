/**
 * The opening draw in public: `GET /draw?queue=Q` answers the draw record once the operator
 * published it (404 `no_draw` otherwise), and `GET /draw/verify` is the page that checks it in
 * the browser with the same code as `deno task verify-draw`.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Services } from "../app.ts";
import { validationHook } from "../http/validation.ts";
import { NoDrawError } from "../lib/errors.ts";
import { publicDraw } from "../lib/queue/draw_list.ts";
import type { DrawRecord } from "../lib/queue/prequeue.ts";
import { keys } from "../lib/store/keys.ts";
import { verifyPage } from "./draw_page.tsx";
import type { Assets } from "./pages/assets.ts";
import { errs, jsonOk, QueueName } from "./schemas.ts";

export const PublicDrawView = z.object({
  scheme: z.string().openapi({ example: "tollgate-draw-v1" }),
  queue: z.string(),
  state: z.enum(["committed", "listed", "done"]).openapi({
    description: "committed: window open, only the commitment is known; listed: list fixed and " +
      "seed revealed, places being assigned; done: admissions follow the drawn order",
  }),
  commitment: z.string().openapi({ description: "hex SHA-256 of the seed, published first" }),
  committedAt: z.number().int().openapi({ description: "unix ms the window opened" }),
  count: z.number().int().optional(),
  listHash: z.string().optional().openapi({
    description: "hex SHA-256 of the arrival numbers, ascending, one per line (\\n between)",
  }),
  seed: z.string().optional().openapi({ description: "32 bytes, hex; revealed with the list" }),
  list: z.array(z.number().int()).optional().openapi({ description: "arrival numbers" }),
  order: z.array(z.number().int()).optional().openapi({
    description: 'arrival numbers by HMAC-SHA256(seed, "<arrival>:<listHash>"), lowest first',
  }),
  drawnAt: z.number().int().optional(),
}).openapi("DrawRecord");

const drawRoute = createRoute({
  method: "get",
  path: "/draw",
  summary: "The queue's opening-draw record, once the operator published it",
  request: { query: z.object({ queue: QueueName }) },
  responses: {
    200: jsonOk(PublicDrawView, "the record (seed, list and order once the list is fixed)"),
    ...errs(400),
    404: {
      description: "unknown queue (`unknown_queue`), or no published draw record (`no_draw`)",
      content: errs(404)[404].content,
    },
  },
});

/** Public draw record and its check page. */
export function drawRoutes(s: Services, assets: () => Promise<Assets>) {
  const app = new OpenAPIHono({ defaultHook: validationHook });
  // The order of a large draw takes a moment to recompute: keep the last answer per queue.
  const cache = new Map<string, { tag: string; body: string }>();
  app.openapi(drawRoute, async (c) => {
    const { queue } = c.req.valid("query");
    await s.engine.settings(queue);
    const [rec, pub] = await s.engine.ctx.kv.getMany<[DrawRecord, boolean]>([
      keys.draw(queue),
      keys.drawPublished(queue),
    ]);
    if (!rec.value) throw new NoDrawError(queue, "");
    if (pub.value !== true) throw new NoDrawError(queue, "published");
    const tag = `${rec.versionstamp}`;
    let hit = cache.get(queue);
    if (hit?.tag !== tag) {
      hit = { tag, body: JSON.stringify(await publicDraw(s.engine.ctx, queue, rec.value)) };
      cache.set(queue, hit);
    }
    return c.body(hit.body, 200, {
      "content-type": "application/json",
      "cache-control": "no-cache",
    }) as never;
  });
  app.route("/", verifyPage(s, assets));
  return app;
}
