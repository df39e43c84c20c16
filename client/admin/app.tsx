/// <reference lib="dom" />
/**
 * The admin app: reads the bootstrap flags and shows the one screen they call for — an invite's
 * accept form, recovery, the setup wizard, sign-in, the terms, or the control room.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { api, basePath, messageOf, setUnauthorizedHandler } from "./api.ts";
import type { Bootstrap } from "./boot.ts";
import { ConfirmHost } from "./ui.tsx";
import { InviteAccept, Login, Recover, TosAccept } from "./auth.tsx";
import { Wizard } from "./wizard/mod.tsx";
import { ControlRoom } from "./control.tsx";
import { leaveUnsaved } from "./unsaved.ts";

/** Which screen the URL asks for: `?invite=<token>` or `?recover`. */
function urlScreen(): { invite?: string; recover?: boolean } {
  const q = new URLSearchParams(location.search);
  return { invite: q.get("invite") ?? undefined, recover: q.has("recover") };
}

export function App() {
  const [boot, setBoot] = useState<Bootstrap | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [screen, setScreen] = useState(urlScreen);
  // The flags of a session that ended while its screen was open (see `unauthorized`).
  const [lapsed, setLapsed] = useState<Bootstrap | null>(null);
  const signedIn = useRef(false);
  signedIn.current = !!boot?.signedIn;
  const load = async () => {
    try {
      setBoot(await api<Bootstrap>("GET", "/api/admin/bootstrap"));
      setError(null);
    } catch (e) {
      setError(messageOf(e));
    }
  };
  /**
   * A call answered 401, or 403 for terms of service that changed meanwhile. When the session
   * ended under an open screen (expired, signed out in another tab) or the terms changed (a
   * release while the page was open), that screen stays as it is, with what was typed in it, and
   * sign-in or the new terms open over it; swapping it for their screen would throw the unsaved
   * edits away.
   */
  const unauthorized = async () => {
    if (!signedIn.current) return void load();
    try {
      const b = await api<Bootstrap>("GET", "/api/admin/bootstrap");
      if (b.signedIn && !b.needsTos) setBoot(b);
      else setLapsed(b);
    } catch (e) {
      setError(messageOf(e));
    }
  };
  useEffect(() => {
    setUnauthorizedHandler(() => void unauthorized());
    load();
    const onPop = () => setScreen(urlScreen());
    addEventListener("popstate", onPop);
    return () => removeEventListener("popstate", onPop);
  }, []);
  /** Leaves `?invite=`/`?recover` behind and re-reads the flags. */
  const done = () => {
    if (location.search) history.replaceState(null, "", `${basePath()}/admin`);
    setScreen({});
    load();
  };

  let body;
  if (error) {
    body = (
      <div class="card" role="alert">
        <p>{error}</p>
        <button type="button" onClick={load}>Try again</button>
      </div>
    );
  } else if (!boot) {
    body = <p aria-busy="true">Loading…</p>;
  } else if (screen.invite && !boot.signedIn) {
    body = <InviteAccept boot={boot} token={screen.invite} done={done} />;
  } else if (screen.recover && !boot.signedIn) {
    body = <Recover boot={boot} done={done} />;
  } else if (!boot.claimed) {
    body = <Wizard boot={boot} done={done} />;
  } else if (!boot.signedIn) {
    body = <Login boot={boot} done={done} />;
  } else if (boot.needsTos) {
    body = <TosAccept boot={boot} done={done} />;
  } else if (!boot.setupComplete) {
    body = <Wizard boot={boot} done={done} />;
  } else {
    body = <ControlRoom boot={boot} done={done} />;
  }
  // A new screen (signed in, set up, signed out) replaced the one that had focus: start it at
  // its top, where Tab and a screen reader go on from, not at the page's first link.
  const kind = body.type;
  const shown = useRef(kind);
  useEffect(() => {
    const before = shown.current;
    shown.current = kind;
    const lost = !document.activeElement || document.activeElement === document.body;
    if (typeof before === "function" && before !== kind && lost) {
      document.getElementById("admin-main")?.focus();
    }
  }, [kind]);
  return (
    <>
      <a class="skip" href="#admin-main">Skip to content</a>
      <header class="top">
        <span class="brand">Tollgate</span>
        {boot && <span class="version">v{boot.version}</span>}
        {boot?.signedIn && boot.me && (
          <span class="who">
            {boot.me.username}{" "}
            <button
              type="button"
              class="link"
              onClick={async () => {
                // Signing out swaps the screen for sign-in: an unsaved edit is asked about first.
                if (!await leaveUnsaved()) return;
                await api("POST", "/api/admin/logout").catch(() => {});
                done();
              }}
            >
              Sign out
            </button>
          </span>
        )}
      </header>
      <main id="admin-main" tabIndex={-1}>{body}</main>
      {lapsed && (
        <SessionEnded
          boot={lapsed}
          done={() => {
            setLapsed(null);
            load();
          }}
        />
      )}
      <ConfirmHost />
    </>
  );
}

/**
 * Sign-in over the open screen after its session ended, or the new terms when they changed under
 * it; what was typed below is kept.
 */
function SessionEnded(p: { boot: Bootstrap; done: () => void }) {
  const tos = p.boot.signedIn;
  return (
    <dialog
      class="confirm session-ended"
      aria-labelledby={tos ? "tos-h" : "login-h"}
      aria-describedby="session-ended-text"
      ref={(el) => {
        if (el && !el.open) el.showModal();
      }}
      // Escape would leave a screen whose every save fails: signing in is the way on.
      onCancel={(e) => e.preventDefault()}
    >
      <p id="session-ended-text" role="alert">
        {tos
          ? "The terms of service changed while this page was open. Accept them to go on: what "
          : "Your session ended (it expired, or you signed out elsewhere). Sign in again to go on: what "}
        you typed on this page is kept, so save it again afterwards.
      </p>
      {tos ? <TosAccept boot={p.boot} done={p.done} /> : <Login boot={p.boot} done={p.done} />}
    </dialog>
  );
}
