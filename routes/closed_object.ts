/**
 * Request bodies that refuse fields they do not know. A misspelt optional field
 * (`closedMesage`, `maxUse`) used to be dropped without a word while the rest of the
 * write went through, so the operator got a setting they had not asked for. A closed
 * object answers 400 naming the unknown field and the fields the call takes.
 */
import { z } from "@hono/zod-openapi";

/**
 * `z.object(shape)` that refuses unknown keys, naming them and the allowed ones.
 *
 * @example
 * const Body = closedObject({ queue: OptQueue, paused: z.boolean() });
 * // {"paused":true,"pasued":1} -> 400: unknown field "pasued" (allowed: queue, paused)
 */
export function closedObject<T extends z.ZodRawShape>(shape: T) {
  const allowed = Object.keys(shape).join(", ");
  return z.object(shape, {
    error: (iss) => {
      if (iss.code !== "unrecognized_keys") return undefined;
      const keys = iss.keys.map((k: string) => `"${k}"`).join(", ");
      return `unknown field${iss.keys.length > 1 ? "s" : ""} ${keys} (allowed: ${allowed})`;
    },
  }).strict();
}
