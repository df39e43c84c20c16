/**
 * The closed room (`reject`): joins are refused with 503 `room_closed` and `Retry-After` (API
 * clients), and the waiting room shows a branded closed page with the operator's text.
 */
import { AppError } from "../errors.ts";
import { instanceMetrics } from "../metrics/instance.ts";

/** 503 `room_closed`: the operator closed the room; `details.message` is the operator's text. */
export class RoomClosedError extends AppError {
  constructor(queue: string, message: string, readonly retryAfterSeconds: number) {
    super(503, "room_closed", message || `queue "${queue}" is closed right now`, {
      queue,
      message,
      retryAfterSeconds,
    });
    instanceMetrics.roomAdmissions.inc([queue, "reject"]);
  }
}
