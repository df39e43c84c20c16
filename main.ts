/** The only wiring: environment -> config -> KV -> app -> server, timers. */
import { createApp } from "./app.ts";
import { cryptoRandom, systemClock } from "./lib/clock.ts";
import { type Config, ConfigError, parseEnv } from "./lib/config.ts";
import { b64url } from "./lib/tokens.ts";
import { VERSION } from "./lib/version.ts";

/** Uses TOKEN_SECRET, or outside production generates one kept beside the local KV file. */
async function resolveSecret(env: ReturnType<typeof parseEnv>): Promise<string> {
  if (env.TOKEN_SECRET) return env.TOKEN_SECRET;
  if (env.TOLLGATE_ENV === "production") {
    throw new ConfigError("invalid TOKEN_SECRET: required when TOLLGATE_ENV=production");
  }
  if (env.DENO_KV_PATH === ":memory:" || /^https?:/.test(env.DENO_KV_PATH)) {
    return b64url(crypto.getRandomValues(new Uint8Array(32)));
  }
  const dir = env.DENO_KV_PATH.includes("/")
    ? env.DENO_KV_PATH.slice(0, env.DENO_KV_PATH.lastIndexOf("/")) || "/"
    : ".";
  const file = `${dir}/token-secret`;
  try {
    return (await Deno.readTextFile(file)).trim();
  } catch {
    await Deno.mkdir(dir, { recursive: true });
    const secret = b64url(crypto.getRandomValues(new Uint8Array(32)));
    await Deno.writeTextFile(file, secret + "\n", { mode: 0o600 });
    // Printed once, at generation, so the operator can claim the admin account.
    console.log(`Generated TOKEN_SECRET (stored in ${file}, shown only now): ${secret}`);
    return secret;
  }
}

async function main() {
  let config: Config;
  try {
    const env = parseEnv(Deno.env.toObject());
    config = { ...env, TOKEN_SECRET: await resolveSecret(env) };
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(`tollgate: ${e.message}`);
      Deno.exit(1);
    }
    throw e;
  }
  const path = config.DENO_KV_PATH;
  if (path !== ":memory:" && !/^https?:/.test(path) && path.includes("/")) {
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")) || "/", { recursive: true });
  }
  const kv = await Deno.openKv(path);
  const { app, services } = await createApp({
    kv,
    clock: systemClock,
    config,
    fetch: globalThis.fetch,
    random: cryptoRandom,
  });
  const tickAll = () =>
    services.engine.queueNames().then((qs) => qs.forEach((q) => services.engine.maybeTick(q)));
  // Per-second admission in long-lived processes; requests also tick, and cron is the net.
  setInterval(() => void tickAll().catch(() => {}), 1000);
  Deno.cron("tollgate-admission-safety-net", "* * * * *", () => tickAll());
  Deno.serve({
    port: config.PORT,
    onListen: ({ hostname, port }) =>
      console.log(
        JSON.stringify({
          msg: "tollgate listening",
          version: VERSION,
          url: `http://${hostname === "0.0.0.0" ? "localhost" : hostname}:${port}/`,
          kv: path,
          queues: config.QUEUES,
        }),
      ),
  }, app.fetch);
}

if (import.meta.main) await main();
