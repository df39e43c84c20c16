import { passwordSettings } from "../lib/admin/passwords.ts";
import { TOS_VERSION } from "../lib/admin/tos.ts";
import type { AdminUser } from "../lib/admin/users.ts";
import { keys } from "../lib/store/keys.ts";
import { Client, type TestApp } from "./helpers.ts";

// PBKDF2 at 600k iterations takes ~0.3 s per hash; tests only need the format and the check.
passwordSettings.iterations = 1_000;

/** The Origin the test app (`app.request("/...")` → http://localhost) accepts on admin writes. */
export const TEST_ORIGIN = "http://localhost";

/** A password that satisfies the rules (12+ characters). */
export const TEST_PASSWORD = "correct horse battery";

/** A cookie-keeping client that adds `Origin: http://localhost` to every non-GET/HEAD request. */
export class AdminClient extends Client {
  override req(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) {
    const m = method.toUpperCase();
    const h = m === "GET" || m === "HEAD" || "origin" in lower(headers)
      ? headers
      : { origin: TEST_ORIGIN, ...headers };
    return super.req(method, path, body, h);
  }
}

function lower(h: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
}

/**
 * Claims the service as its first admin ("admin", via `POST /api/admin/claim` with the bearer
 * TOKEN_SECRET) and returns a signed-in client plus the recovery phrase.
 */
export async function adminClient(
  t: TestApp,
  opts: { username?: string; password?: string } = {},
): Promise<{ client: AdminClient; phrase: string; username: string; password: string }> {
  const username = opts.username ?? "admin";
  const password = opts.password ?? TEST_PASSWORD;
  const client = new AdminClient(t.app);
  const res = await client.req(
    "POST",
    "/api/admin/claim",
    { username, password, acceptedTosVersion: TOS_VERSION },
    { authorization: `Bearer ${t.config.TOKEN_SECRET}` },
  );
  if (res.status !== 200) throw new Error(`claim failed: ${res.status} ${res.text}`);
  if (!client.cookies.has("tg_admin")) throw new Error("claim set no tg_admin cookie");
  return { client, phrase: res.json.recoveryPhrase, username, password };
}

/** Signs in an existing admin through `POST /api/admin/login`; throws unless it succeeds. */
export async function loginAs(t: TestApp, username: string, password: string) {
  const client = new AdminClient(t.app);
  const res = await client.req("POST", "/api/admin/login", { username, password });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${res.text}`);
  return client;
}

/** Writes `version` as the admin's accepted ToS (an older one simulates a ToS bump). */
export async function setAcceptedTos(t: TestApp, username: string, version: string) {
  const id = (await t.kv.get<string>(keys.adminUsername(username.toLowerCase()))).value;
  if (!id) throw new Error(`no admin named ${username}`);
  const u = await t.kv.get<AdminUser>(keys.adminUser(id));
  await t.kv.set(keys.adminUser(id), { ...u.value!, acceptedTosVersion: version });
}
