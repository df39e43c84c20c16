/**
 * E-mail addresses of the turn e-mail (and the admin's test mail): a domain in any script
 * (`ann@bücher.example`, `ann@пример.рф`) is accepted and sent in its ASCII form (punycode,
 * `xn--…`, by `node:url`'s `domainToASCII`), which every SMTP server takes; the local part stays
 * ASCII (a non-ASCII one needs SMTPUTF8, which many servers refuse). Anything else that is no
 * address is refused, as before.
 */
import { domainToASCII } from "node:url";

/** The local part, as zod's `z.email()` has it: no leading dot, no two dots in a row. */
const LOCAL = /^(?!\.)(?!.*\.\.)[A-Za-z0-9_'+\-.]*[A-Za-z0-9_+-]$/;
/** One DNS label of 1 to 63 letters, digits and inner hyphens. */
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** A top-level domain: letters, or an IDN one in punycode (`xn--p1ai`). */
const TLD = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

/** `input` with its domain in ASCII (punycode), or null when it is no e-mail address. */
export function asciiEmail(input: string): string | null {
  const at = input.lastIndexOf("@");
  if (at < 1 || input.length > 254) return null;
  const local = input.slice(0, at);
  if (local.length > 64 || !LOCAL.test(local)) return null;
  const domain = domainToASCII(input.slice(at + 1));
  const labels = domain.split(".");
  if (!domain || labels.length < 2 || !labels.every((l) => LABEL.test(l))) return null;
  if (!TLD.test(labels[labels.length - 1])) return null;
  const out = `${local}@${domain}`;
  return out.length <= 254 ? out : null;
}
