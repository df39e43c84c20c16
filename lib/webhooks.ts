/**
 * The webhook sender: best-effort HTTPS POSTs of `{event, queue, at, detail}`, signed
 * with `X-Service-Signature` when a secret is set, 5 s timeout, no retries. `emit` returns at
 * once and delivers in the background, so no visitor request ever waits for a receiver.
 *
 * @example
 * const hooks = createWebhooks({ kv, clock, fetch, config });
 * await hooks.emit("pause", "default", { paused: true }); // resolves before delivery
 * await hooks.idle(); // tests: wait for deliveries in flight
 */
import type { EventSink } from "./services.ts";
import type { Clock } from "./clock.ts";
import type { Config } from "./config.ts";
import { unseal } from "./seal.ts";
import { keys } from "./store/keys.ts";
import { hmacB64url } from "./tokens.ts";
import { type OutboundConfig, outboundGuard } from "./outbound/guard.ts";
import { couldNotReach, safeHost } from "./outbound/failure.ts";
import { VERSION } from "./version.ts";
import { logLine } from "./log.ts";
import {
  loadWebhookSettings,
  mergeWebhookSettings,
  WEBHOOK_SECRET_PURPOSE,
  type WebhookEvent,
  type WebhookSettings,
} from "./webhooks_settings.ts";

/** Delivery timeout. */
export const WEBHOOK_TIMEOUT_MS = 5_000;

/** What the sender needs; `timeoutMs` and `log` are there for tests. */
export interface WebhookDeps {
  kv: Deno.Kv;
  clock: Clock;
  fetch: typeof fetch;
  /** The secret, and the outbound-URL policy's settings (each delivery's address is checked). */
  config: Pick<Config, "TOKEN_SECRET"> & OutboundConfig;
  timeoutMs?: number;
  /** One line per problem, never a secret or the full URL (default: `logLine`, lib/log.ts). */
  log?: (line: string) => void;
}

/** The body of every webhook. */
export interface WebhookPayload {
  event: WebhookEvent;
  queue: string;
  at: number;
  detail: Record<string, unknown>;
}

/** Outcome of one delivery attempt. */
export interface DeliveryResult {
  delivered: boolean;
  status?: number;
  error?: string;
}

/** `base64url(HMAC-SHA256(secret, body))`, the value of `X-Service-Signature`. */
export function signWebhookBody(secret: string, body: string): string {
  return hmacB64url(secret, body);
}

/** The webhook sender: an `EventSink` plus the depth trigger and an explicit test delivery. */
export class Webhooks implements EventSink {
  #inflight = new Set<Promise<unknown>>();
  #timeoutMs: number;
  #log: (line: string) => void;

  constructor(readonly deps: WebhookDeps) {
    this.#timeoutMs = deps.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
    this.#log = deps.log ?? logLine;
  }

  /** Queues a delivery of `event` when enabled and subscribed; resolves immediately, never throws. */
  emit(event: WebhookEvent, queue: string, detail: Record<string, unknown>): Promise<void> {
    const at = this.deps.clock.now();
    this.#track(this.#emitNow({ event, queue, at, detail }));
    return Promise.resolve();
  }

  /** Resolves once every delivery started so far (and any they started) has finished. */
  async idle(): Promise<void> {
    while (this.#inflight.size > 0) await Promise.allSettled([...this.#inflight]);
  }

  /**
   * Emits `depth` once when `waiting` reaches the threshold, and again only after it has dropped
   * below. The fired state lives in KV behind a checked write, so one instance fires, not all.
   */
  checkDepth(queue: string, waiting: number): Promise<void> {
    const p = this.#checkDepth(queue, waiting);
    this.#track(p);
    return p;
  }

  async #checkDepth(queue: string, waiting: number): Promise<void> {
    try {
      const [settingsEntry, firedEntry] = await this.deps.kv.getMany([
        keys.webhooks(),
        keys.depthArmed(queue),
      ]);
      const s = mergeWebhookSettings(settingsEntry.value as Partial<WebhookSettings> | null);
      if (!s.enabled || !s.events.includes("depth")) return;
      const key = keys.depthArmed(queue);
      if (waiting >= s.depthThreshold && firedEntry.versionstamp === null) {
        const res = await this.deps.kv.atomic().check({ key, versionstamp: null })
          .set(key, { firedAt: this.deps.clock.now(), waiting }).commit();
        // Losing the check means another instance fired this crossing already.
        if (res.ok) await this.emit("depth", queue, { waiting, threshold: s.depthThreshold });
      } else if (waiting < s.depthThreshold && firedEntry.versionstamp !== null) {
        await this.deps.kv.atomic().check(firedEntry).delete(key).commit();
      }
    } catch (e) {
      this.#log(
        JSON.stringify({
          level: "warn",
          msg: "webhook depth check failed",
          queue,
          error: String(e),
        }),
      );
    }
  }

  /** Sends one payload to the configured URL now, whatever `enabled` and `events` say. */
  async deliverTest(queue: string, detail: Record<string, unknown>): Promise<DeliveryResult> {
    const s = await loadWebhookSettings(this.deps.kv);
    if (!s.url) return { delivered: false, error: "no webhook URL configured" };
    const payload: WebhookPayload = { event: "pause", queue, at: this.deps.clock.now(), detail };
    const p = this.#post(s, payload);
    this.#track(p);
    return await p;
  }

  async #emitNow(payload: WebhookPayload): Promise<void> {
    try {
      const s = await loadWebhookSettings(this.deps.kv);
      if (!s.enabled || !s.url || !s.events.includes(payload.event)) return;
      await this.#post(s, payload);
    } catch (e) {
      this.#log(JSON.stringify({ level: "warn", msg: "webhook emit failed", error: String(e) }));
    }
  }

  async #post(s: WebhookSettings, payload: WebhookPayload): Promise<DeliveryResult> {
    const body = JSON.stringify(payload);
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "user-agent": `tollgate/${VERSION}`,
    };
    const host = safeHost(s.url);
    if (s.sealedSecret !== undefined) {
      const secret = await unseal(
        this.deps.config.TOKEN_SECRET,
        s.sealedSecret,
        WEBHOOK_SECRET_PURPOSE,
      );
      // After a TOKEN_SECRET rotation the secret is gone: a signature under any other key would
      // only look forged to the receiver, so send unsigned and say so once per delivery.
      if (secret === null) {
        this.#log(JSON.stringify({
          level: "warn",
          msg:
            "webhook signing secret unreadable (TOKEN_SECRET rotated?); sent unsigned; set the secret again",
          event: payload.event,
          host,
        }));
      } else headers["x-service-signature"] = signWebhookBody(secret, body);
    }
    // Checked before each delivery: the name may resolve elsewhere than when it was saved.
    const refused = await outboundGuard(this.deps.config).checkSend(s.url);
    const result: DeliveryResult = refused
      ? { delivered: false, error: `refused: ${refused.detail}` }
      : await this.#send(s.url, headers, body, host);
    if (!result.delivered) {
      this.#log(JSON.stringify({
        level: "warn",
        msg: "webhook not delivered",
        event: payload.event,
        queue: payload.queue,
        host,
        status: result.status,
        error: result.error,
      }));
    }
    return result;
  }

  /** One POST to the receiver; never throws. */
  async #send(
    url: string,
    headers: Record<string, string>,
    body: string,
    host: string,
  ): Promise<DeliveryResult> {
    try {
      const res = await this.deps.fetch(url, {
        method: "POST",
        headers,
        body,
        // A redirect could lead anywhere, including back to us: not followed.
        redirect: "manual",
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      await res.body?.cancel();
      return res.ok ? { delivered: true, status: res.status } : {
        delivered: false,
        status: res.status,
        error: `receiver answered ${res.status}`,
      };
    } catch (e) {
      const name = e instanceof Error ? e.name : "";
      return {
        delivered: false,
        error: name === "TimeoutError" || name === "AbortError"
          ? `no answer within ${this.#timeoutMs} ms`
          : couldNotReach(e, host),
      };
    }
  }

  #track(p: Promise<unknown>): void {
    const done = p.catch(() => {}).finally(() => this.#inflight.delete(done));
    this.#inflight.add(done);
  }
}

/** Builds the sender that `app.ts` wires in as `services.events`. */
export function createWebhooks(deps: WebhookDeps): Webhooks {
  return new Webhooks(deps);
}
