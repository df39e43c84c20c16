/**
 * A real SMTP server for the turn e-mail tests: Debian's aiosmtpd (`python3-aiosmtpd`) on a free
 * loopback port, its debugging handler printing every message it receives to stdout, which is
 * read here message by message. Unprivileged, no files, stopped with the test.
 */
import { freePort, sleep } from "./procs.ts";

/** One received message: its headers and its text, both decoded (UTF-8, as sent). */
export interface ReceivedMail {
  headers: Record<string, string>;
  text: string;
}

/** The running server. */
export interface SmtpServer {
  port: number;
  /** Messages received so far. */
  mails: ReceivedMail[];
  /** Waits until at least `n` messages arrived (real time, at most `timeoutMs`). */
  waitFor(n: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  stop(): Promise<void>;
}

/** The Python that has Debian's packages (a pyenv one on PATH may not). */
const PYTHON = "/usr/bin/python3";

/** Soft line breaks and `=XX` escapes of quoted-printable, undone (the bytes read as UTF-8). */
function decodeQp(s: string): string {
  const latin = s.replace(/=\r?\n/g, "").replace(
    /=([0-9A-F]{2})/g,
    (_, h) => String.fromCharCode(parseInt(h, 16)),
  );
  return utf8(latin);
}

/** A string of byte values (0-255) read as UTF-8. */
function utf8(bytes: string): string {
  return new TextDecoder().decode(Uint8Array.from(bytes, (c) => c.charCodeAt(0)));
}

/** RFC 2047 encoded words (`=?UTF-8?Q?...?=`, `=?UTF-8?B?...?=`) of a header, decoded. */
export function decodeHeader(value: string): string {
  return value.replace(/\?=\s+=\?/g, "?==?").replace(
    /=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g,
    (_, _charset, how, text: string) =>
      how.toUpperCase() === "B" ? utf8(atob(text)) : decodeQp(text.replace(/_/g, " ")),
  );
}

/** Splits the debugging handler's output into messages. */
function parse(out: string): ReceivedMail[] {
  const mails: ReceivedMail[] = [];
  const re = /-{10} MESSAGE FOLLOWS -{10}\r?\n([\s\S]*?)\r?\n-{12} END MESSAGE -{12}/g;
  for (const m of out.matchAll(re)) {
    const raw = m[1].replace(/^b'|'$/gm, "");
    const cut = raw.search(/\r?\n\r?\n/);
    const head = cut < 0 ? raw : raw.slice(0, cut);
    const headers: Record<string, string> = {};
    for (const line of head.replace(/\r?\n[ \t]+/g, " ").split(/\r?\n/)) {
      const i = line.indexOf(":");
      if (i > 0) headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
    }
    const body = cut < 0 ? "" : raw.slice(cut).trim();
    for (const k of Object.keys(headers)) headers[k] = decodeHeader(headers[k]);
    const encoding = headers["content-transfer-encoding"] ?? "";
    const text = /quoted-printable/i.test(encoding)
      ? decodeQp(body)
      : /base64/i.test(encoding)
      ? utf8(atob(body.replace(/\s+/g, "")))
      : body;
    mails.push({ headers, text });
  }
  return mails;
}

/** True when `python3-aiosmtpd` is installed (the tests say how to get it otherwise). */
export async function haveAiosmtpd(): Promise<boolean> {
  try {
    const out = await new Deno.Command(PYTHON, { args: ["-c", "import aiosmtpd"], stderr: "null" })
      .output();
    return out.success;
  } catch {
    return false;
  }
}

/** Starts aiosmtpd on loopback and waits until it accepts connections. */
export async function startSmtpServer(): Promise<SmtpServer> {
  const port = freePort();
  const child = new Deno.Command(PYTHON, {
    args: ["-u", "-m", "aiosmtpd", "-n", "-l", `127.0.0.1:${port}`],
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  let out = "";
  const server: SmtpServer = {
    port,
    mails: [],
    async waitFor(n, timeoutMs = 15_000) {
      const end = Date.now() + timeoutMs;
      while (server.mails.length < n && Date.now() < end) await sleep(50);
      return server.mails;
    },
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch { /* gone already */ }
      await child.status;
      await reading;
    },
  };
  const reading = (async () => {
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      out += chunk;
      server.mails = parse(out);
    }
  })().catch(() => {});
  for (let i = 0; i < 100; i++) {
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port })).close();
      return server;
    } catch {
      await sleep(100);
    }
  }
  await server.stop();
  throw new Error(`aiosmtpd did not listen on 127.0.0.1:${port}`);
}
