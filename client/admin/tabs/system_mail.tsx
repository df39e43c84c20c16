/// <reference lib="dom" />
/**
 * The System tab's "Turn e-mail" section: the SMTP server the visitors' "e-mail me when it's my
 * turn" goes through (host, port, TLS, sign-in, sender, when to send), a write-only password, and
 * a test e-mail. Saved settings win over the SMTP_* variables; an empty host goes back to them.
 */
import { useState } from "preact/hooks";
import { confirmReplace, savedElsewhere } from "../stale.ts";
import { api } from "../api.ts";
import { ActionForm, Check, Input, Radios, useLoad } from "../forms.tsx";
import { Section, useAction } from "../ui.tsx";

/** The settings as `GET /api/admin/mail` shows them. */
interface MailView {
  source: "admin" | "env" | "none";
  host: string;
  port: number;
  tls: "starttls" | "tls" | "none";
  user: string;
  from: string;
  atPosition: number;
  hasPassword: boolean;
}

const TLS = [
  ["starttls", "STARTTLS (port 587)"],
  ["tls", "TLS from the start (port 465)"],
  ["none", "None (a relay on this machine or network only)"],
] as const;

const SOURCE: Record<MailView["source"], string> = {
  admin: "These settings are saved here and used.",
  env: "The SMTP_* variables are used; saving here overrides them.",
  none: "No SMTP server is set: the waiting page does not offer the e-mail.",
};

/** A test e-mail through the settings in force. */
function MailTest() {
  const [to, setTo] = useState("");
  const act = useAction();
  const send = () =>
    act.run(async () => {
      const r = await api<{ sent: boolean; error?: string }>("POST", "/api/admin/mail/test", {
        to,
      });
      if (!r.sent) throw new Error(`Not sent: ${r.error ?? "unknown error"}`);
      return `Sent to ${to}.`;
    });
  return (
    <ActionForm act={act} submit="Send a test e-mail" onSubmit={send}>
      <Input label="Test address" type="email" value={to} onValue={setTo} required />
    </ActionForm>
  );
}

/** The fields a save writes, as the form labels them. */
const MAIL_LABELS = {
  host: "SMTP server",
  port: "Port",
  tls: "Encryption",
  user: "User name",
  from: "Sender",
  atPosition: "Send at place in line",
} as const;

/** The SMTP settings form. */
export function MailSection() {
  const [view, setView] = useState<MailView | null>(null);
  const [host, setHost] = useState("");
  const [port, setPort] = useState("587");
  const [tls, setTls] = useState<MailView["tls"]>("starttls");
  const [user, setUser] = useState("");
  const [password, setPassword] = useState("");
  const [clearPassword, setClearPassword] = useState(false);
  const [from, setFrom] = useState("");
  const [at, setAt] = useState("0");
  const act = useAction();
  const show = (v: MailView) => {
    setView(v);
    setHost(v.host);
    setPort(String(v.port));
    setTls(v.tls);
    setUser(v.user);
    setFrom(v.from);
    setAt(String(v.atPosition));
  };
  const { loaded } = useLoad("/api/admin/mail", show, act);
  const save = async () => {
    const secret = password ? { password } : clearPassword ? { password: null } : {};
    const r = await act.run(async () => {
      const mine = {
        host: host.trim(),
        port: Number(port),
        tls,
        user: user.trim(),
        from: from.trim(),
        atPosition: Number(at),
      };
      // Written whole: a field another tab saved since, left alone here, is kept (stale.ts).
      if (view) {
        const stored = await api<MailView>("GET", "/api/admin/mail");
        const keys = Object.keys(mine) as (keyof typeof mine)[];
        const { kept, clash } = savedElsewhere(
          keys,
          (k) => view[k],
          (k) => stored[k],
          (k) => mine[k],
        );
        await confirmReplace(clash.map((k) => MAIL_LABELS[k]));
        for (const k of kept) (mine as Record<string, unknown>)[k] = stored[k];
      }
      return await api<MailView>("PUT", "/api/admin/mail", { ...mine, ...secret });
    }, "Saved.");
    if (r) {
      show(r);
      setPassword("");
      setClearPassword(false);
    }
  };
  return (
    <Section title="Turn e-mail" id="mail">
      <p class="muted">
        Visitors may leave an address to get an e-mail when it's their turn, with a link that moves
        their place to the device they read it on. Addresses are deleted once sent or when the place
        ends.
      </p>
      {view && <p data-testid="mail-source">{SOURCE[view.source]}</p>}
      <ActionForm act={act} submit="Save e-mail settings" onSubmit={save} loading={!loaded}>
        <Input
          label="SMTP server"
          hint="Host name or address; empty goes back to the SMTP_* variables."
          value={host}
          onValue={setHost}
          placeholder="smtp.example.com"
        />
        <Input
          label="Port"
          type="number"
          min={1}
          max={65535}
          inputMode="numeric"
          value={port}
          onValue={setPort}
        />
        <Radios legend="Encryption" name="mail-tls" options={TLS} value={tls} onChange={setTls} />
        <Input label="User name" value={user} onValue={setUser} autocomplete="off" />
        <Input
          label="Password"
          hint={view?.hasPassword ? "A password is set. Type a new one to change it." : undefined}
          type="password"
          autocomplete="new-password"
          value={password}
          onValue={setPassword}
        />
        {view?.hasPassword && (
          <Check label="Remove the password" checked={clearPassword} onChange={setClearPassword} />
        )}
        <Input
          label="Sender"
          hint="For example: Waiting room <queue@example.com>"
          value={from}
          onValue={setFrom}
        />
        <Input
          label="Send at place in line"
          hint="0 sends it when the visitor is admitted; 10 when it is 10th in line."
          type="number"
          min={0}
          inputMode="numeric"
          value={at}
          onValue={setAt}
        />
      </ActionForm>
      <MailTest />
    </Section>
  );
}
