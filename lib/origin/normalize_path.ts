/**
 * One spelling of a URL path, so the service's own paths cannot be reached on the origin through
 * another one (`/%61pi/admin`, `/x/../api/admin`, `//api/admin`): the gate matches and forwards
 * this form, never the text the client sent.
 */

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/**
 * The path with unreserved characters percent-decoded (other escapes upper-cased), repeated
 * slashes collapsed and dot segments removed (RFC 3986 6.2.2, 5.2.4). Takes a path without query.
 *
 * @example
 * normalizePath("/x/..//%61pi/./admin"); // "/api/admin"
 */
export function normalizePath(path: string): string {
  // The usual path has nothing to normalise: answered without a copy.
  if (!path.includes("%") && !path.includes("//") && !path.includes("/.")) return path;
  const decoded = path.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => {
    const ch = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(ch) ? ch : `%${hex.toUpperCase()}`;
  });
  const out: string[] = [];
  const segments = decoded.replace(/\/{2,}/g, "/").split("/").slice(1);
  for (const seg of segments) {
    if (seg === "..") out.pop();
    else if (seg !== ".") out.push(seg);
  }
  // `/a/.` and `/a/..` name a directory: the result ends with a slash, as in RFC 3986.
  const last = segments.at(-1);
  if ((last === "." || last === "..") && out.at(-1) !== "") out.push("");
  return `/${out.join("/")}`;
}

/** Most rounds of decoding a path may need before it stops changing (past it: ambiguous). */
const MAX_DECODE_ROUNDS = 4;

/**
 * The path as the most lenient origin would route it, used only to decide whether a path is
 * ours, never forwarded: every escape decoded until the text stops changing (`%2561` is `a` to
 * an origin that decodes twice), `\` and `%2F`/`%5C` read as `/`, `;parameters` and trailing
 * dots and spaces dropped from each segment (servlet containers and Windows do), dot segments
 * removed and ASCII letters lower-cased (a case-insensitive router). Null when the path still
 * changes after a few rounds of decoding: ambiguous, so the caller treats it as ours.
 *
 * @example
 * routingPath("/%2541PI;x=1/admin."); // "/api/admin"
 */
export function routingPath(path: string): string | null {
  let p = path;
  for (let round = 0;; round++) {
    const next = p.replace(
      /%([0-9A-Fa-f]{2})/g,
      (_, h: string) => String.fromCharCode(parseInt(h, 16)),
    )
      .replace(/\\/g, "/");
    if (next === p) break;
    if (round >= MAX_DECODE_ROUNDS) return null;
    p = next;
  }
  const segments = p.split("/").map((seg) => {
    const param = seg.indexOf(";");
    const bare = param < 0 ? seg : seg.slice(0, param);
    return bare === "." || bare === ".." ? bare : bare.replace(/[. ]+$/, "");
  });
  return normalizePath(segments.join("/")).replace(/[A-Z]+/g, (c) => c.toLowerCase());
}
