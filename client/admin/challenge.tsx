/// <reference lib="dom" />
/**
 * The bot-challenge widget (Cloudflare Turnstile, explicit rendering): its script is loaded once
 * from `adminProps().turnstileScript`, the widget renders into a container, and its response
 * token is handed up. Tokens are single-use: after a failed submit the form resets the widget
 * (`useChallenge().reset()`), which clears the token and shows a fresh challenge.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { adminProps } from "./boot.ts";

/** The part of Turnstile's browser API the admin uses. */
interface TurnstileApi {
  render(container: HTMLElement, params: Record<string, unknown>): string | undefined;
  reset(id?: string): void;
  remove(id?: string): void;
  getResponse(id?: string): string | undefined;
}

type WithTurnstile = typeof globalThis & {
  turnstile?: TurnstileApi;
  tgTurnstileReady?: () => void;
};

let loading: Promise<TurnstileApi> | null = null;

/** Said when Turnstile cannot be reached: sign-in cannot work, and the way out. */
export const UNREACHABLE = "Cloudflare Turnstile, the bot check that guards sign-in, could not " +
  "be reached, so signing in is not possible right now. Check your connection and reload. If " +
  "Turnstile stays unreachable, whoever runs this service can switch sign-in to the built-in " +
  "check: POST /api/admin/challenge/use-builtin with the header " +
  "Authorization: Bearer <TOKEN_SECRET> (see the README).";

/** Loads the widget script once (a `<script>` in head, `?render=explicit`); resolves its API. */
function loadTurnstile(): Promise<TurnstileApi> {
  const w = globalThis as WithTurnstile;
  if (w.turnstile) return Promise.resolve(w.turnstile);
  return loading ??= new Promise<TurnstileApi>((resolve, reject) => {
    const url = new URL(adminProps().turnstileScript, location.href);
    url.searchParams.set("render", "explicit");
    url.searchParams.set("onload", "tgTurnstileReady");
    const ready = () => w.turnstile ? resolve(w.turnstile) : undefined;
    w.tgTurnstileReady = ready;
    const s = document.createElement("script");
    s.src = url.href;
    s.async = true;
    s.onload = ready;
    s.onerror = () => {
      loading = null;
      s.remove();
      reject(new Error(UNREACHABLE));
    };
    document.head.appendChild(s);
  });
}

/** A form's challenge state: the token, the setter the widget calls, and a reset. */
export function useChallenge() {
  const [token, setToken] = useState<string | null>(null);
  const [resetKey, setResetKey] = useState(0);
  return {
    token,
    onToken: setToken,
    resetKey,
    /** Clears the used token and shows a fresh challenge. */
    reset: () => {
      setToken(null);
      setResetKey((n) => n + 1);
    },
  };
}

/**
 * Renders the widget for `siteKey`; `onToken(token)` on success, `onToken(null)` when it expires
 * or fails. Changing `resetKey` resets it (a fresh, unsolved challenge).
 */
export function ChallengeWidget(
  p: {
    siteKey: string;
    onToken: (token: string | null) => void;
    action?: string;
    resetKey?: number;
  },
) {
  const box = useRef<HTMLDivElement>(null);
  const id = useRef<string | undefined>(undefined);
  const cb = useRef(p.onToken);
  cb.current = p.onToken;
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let gone = false;
    loadTurnstile().then((t) => {
      if (gone || !box.current) return;
      id.current = t.render(box.current, {
        sitekey: p.siteKey,
        ...(p.action ? { action: p.action } : {}),
        callback: (token: string) => {
          setError(null);
          cb.current(token);
        },
        "expired-callback": () => cb.current(null),
        "error-callback": () => {
          cb.current(null);
          setError("The bot check failed to run. Try it again, or reload the page.");
        },
      });
    }).catch((e) => setError(e instanceof Error ? e.message : String(e)));
    return () => {
      gone = true;
      const t = (globalThis as WithTurnstile).turnstile;
      if (t && id.current) t.remove(id.current);
      id.current = undefined;
    };
  }, [p.siteKey, p.action]);

  useEffect(() => {
    const t = (globalThis as WithTurnstile).turnstile;
    if (p.resetKey && t && id.current) {
      t.reset(id.current);
      cb.current(null);
    }
  }, [p.resetKey]);

  return (
    <div class="challenge" role="group" aria-label="Bot check">
      <div ref={box} class="challenge-box" />
      {error && <p class="status error" role="alert">{error}</p>}
    </div>
  );
}
