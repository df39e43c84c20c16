/**
 * Why a request to an admin-chosen target (webhook receiver, health probe) failed, in words an
 * operator can act on. Deno's `fetch` throws a bare "fetch failed" whose real reason (refused,
 * an untrusted certificate, an unknown name) sits in `cause`; the test delivery and the probe's
 * `lastError` said only "could not reach host", so a receiver with a private CA's certificate
 * looked like one that was down. The runtime's text also quotes the URL (a path or query may hold
 * the receiver's token), so only the part after the connection stage is kept, with any URL cut
 * to its host.
 *
 * @example
 * couldNotReach(err, "hooks.example.com");
 * // "could not reach hooks.example.com: TLS certificate not trusted (invalid peer certificate: UnknownIssuer)"
 */

/** Kinds of failure, tried in order against the runtime's own words. */
const KINDS: [RegExp, string][] = [
  [/certificate|UnknownIssuer|CaUsedAsEndEntity|NotValidForName/i, "TLS certificate not trusted"],
  [/handshake|\btls\b|\bssl\b/i, "TLS handshake failed"],
  [/dns error|lookup address|name or service not known|no such host/i, "host name not found"],
  [/connection refused/i, "connection refused"],
  [/reset|broken pipe|connection closed|\beof\b/i, "connection closed"],
  [/blocked/i, "port blocked by the runtime"],
];

/** The innermost message of an error's `cause` chain (the runtime's real reason). */
function innermost(e: unknown): string {
  let msg = "";
  for (let x: unknown = e, depth = 0; x !== undefined && x !== null && depth < 8; depth++) {
    msg = x instanceof Error ? x.message : String(x);
    x = x instanceof Error ? x.cause : undefined;
  }
  return msg;
}

/** Host (and port) of a URL, the most a message may show: paths often embed receiver tokens. */
export function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "(invalid url)";
  }
}

/** First line of a message with any URL cut to its host (fetch errors quote the URL). */
export function redactUrls(message: string): string {
  return message.split("\n")[0].replace(/[a-z][a-z0-9+.-]*:\/\/[^\s)]+/gi, (u) => safeHost(u));
}

/** The runtime's reason without the request it was about: "invalid peer certificate: …". */
function reasonText(e: unknown): string {
  const raw = innermost(e);
  // "error sending request for url (https://h/p?t=…): client error (Connect): <reason>"
  const at = raw.lastIndexOf("client error (");
  const tail = at >= 0 ? raw.slice(at).replace(/^client error \([^)]*\):\s*/, "") : raw;
  return redactUrls(tail).slice(0, 160).trim();
}

/** `could not reach <host>: <kind> (<runtime's reason>)`, never the URL's path or query. */
export function couldNotReach(e: unknown, host: string): string {
  const reason = reasonText(e);
  const kind = KINDS.find(([re]) => re.test(reason))?.[1];
  if (!reason || /^fetch failed$/i.test(reason)) return `could not reach ${host}`;
  return kind
    ? `could not reach ${host}: ${kind} (${reason})`
    : `could not reach ${host}: ${reason}`;
}
