/// <reference lib="dom" />
/** What the server tells the admin app (the `#tg-admin-props` JSON block of /admin), and the
 * public bootstrap flags of `GET /api/admin/bootstrap`. */

/** Props embedded in the /admin page by routes/pages/admin.tsx. */
export interface AdminProps {
  /** Script URL of the bot-challenge widget API (Turnstile's api.js; a fake in tests). */
  turnstileScript: string;
}

export function adminProps(): AdminProps {
  const el = document.getElementById("tg-admin-props");
  return JSON.parse(el?.textContent || "{}");
}

/** `GET /api/admin/bootstrap`. */
export interface Bootstrap {
  claimed: boolean;
  setupComplete: boolean;
  signedIn: boolean;
  needsTos: boolean;
  challengeRequired: boolean;
  /** Which check sign-in asks for; null while none is live. */
  challengeKind: "turnstile" | "builtin" | null;
  challengeSiteKey?: string;
  version: string;
  tosVersion: string;
  tosSummary: string;
  acceptedTosVersion: string | null;
  me: { id: string; username: string } | null;
}

/** Props of every screen outside the control room: the flags, and `done()` to re-read them. */
export interface ScreenProps {
  boot: Bootstrap;
  done: () => void;
}

/** Props of every control-room tab: the queue picked in the header, and the flags. */
export interface TabProps {
  queue: string;
  boot: Bootstrap;
}
