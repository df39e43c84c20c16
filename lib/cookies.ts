/**
 * The one Cookie-header reader (the HTTP layer and the origin proxy use it): every value of a
 * name is kept, in header order; a quoted value is unquoted and a percent-encoded one decoded.
 */

/** Every value of cookie `name` in a Cookie header, unquoted and decoded, in header order. */
export function cookieValues(header: string | null | undefined, name: string): string[] {
  if (!header || !header.includes(name)) return [];
  const out: string[] = [];
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    let v = part.slice(eq + 1).trim();
    if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) v = v.slice(1, -1);
    if (v.includes("%")) {
      try {
        v = decodeURIComponent(v);
      } catch { /* kept as sent: it will not verify */ }
    }
    if (v) out.push(v);
  }
  return out;
}
