/**
 * What the start tells an operator about the admin app (one JSON log line, like every other):
 * where it is and how to get in. Before the service is claimed, the first visit asks for
 * `TOKEN_SECRET` to create the first account, so the line says where that secret is (printed at
 * its generation and kept in a file, or the value the operator set); the secret itself is never
 * repeated here. One store read, at start.
 */
import { keys } from "../store/keys.ts";

/** Where the operator finds the secret the first visit asks for. */
export type SecretSource = { kind: "set" } | { kind: "file"; path: string } | { kind: "shown" };

/** The admin app's address: PUBLIC_URL's origin when set, else the address the server listens on. */
export function adminUrl(publicUrl: string | undefined, listening: string, base = ""): string {
  const origin = publicUrl ? new URL(publicUrl).origin : listening.replace(/\/$/, "");
  return `${origin}${base}/admin`;
}

/** What to do at `url`, for the start's `admin app` log line. */
export async function adminHint(kv: Deno.Kv, secret: SecretSource): Promise<string> {
  const claimed = (await kv.get(keys.adminClaimed())).value !== null;
  if (claimed) return "sign in with your admin account";
  const where = secret.kind === "set"
    ? "the TOKEN_SECRET you set"
    : secret.kind === "file"
    ? `the TOKEN_SECRET printed at its generation, also in ${secret.path}`
    : "the TOKEN_SECRET printed above";
  return `no admin account yet: open it, paste ${where}, and create the first account`;
}
