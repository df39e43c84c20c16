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

/**
 * The normalised path as an origin that also decodes `%2F` and `%5C` and reads `\` as `/` would
 * route it: used only to decide whether a path is ours, never forwarded.
 */
export function routingPath(path: string): string {
  const p = normalizePath(path);
  return /%2F|%5C|\\/i.test(p) ? normalizePath(p.replace(/%2F|%5C|\\/gi, "/")) : p;
}
