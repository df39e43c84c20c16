/**
 * What the start tells an operator about the admin app: where it is and how to get in. Before
 * the service is claimed, the first visit asks for `TOKEN_SECRET` to create the first account,
 * so the line says where that secret is (printed above and kept in a file, or the value the
 * operator set); the secret itself is never repeated here. One store read, at start.
 */
import { keys } from "../store/keys.ts";

/** Where the operator finds the secret the first visit asks for. */
export type SecretSource = { kind: "set" } | { kind: "file"; path: string } | { kind: "shown" };

/** The admin app's address: PUBLIC_URL's origin when set, else the address the server listens on. */
export function adminUrl(publicUrl: string | undefined, listening: string, base = ""): string {
  const origin = publicUrl ? new URL(publicUrl).origin : listening.replace(/\/$/, "");
  return `${origin}${base}/admin`;
}

/** The line that tells the operator where the admin app is and how to sign in. */
export async function adminHint(kv: Deno.Kv, url: string, secret: SecretSource): Promise<string> {
  const claimed = (await kv.get(keys.adminClaimed())).value !== null;
  if (claimed) return `Admin app: ${url} (sign in with your admin account)`;
  const where = secret.kind === "set"
    ? "the TOKEN_SECRET you set"
    : secret.kind === "file"
    ? `the TOKEN_SECRET above, also in ${secret.path}`
    : "the TOKEN_SECRET above";
  return `Admin app: ${url} (no admin account yet: open it, paste ${where}, and create the ` +
    "first account)";
}
