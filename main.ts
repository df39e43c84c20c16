/** The only wiring: environment -> config -> KV -> app -> server, timers. */
import { createApp } from "./app.ts";
import { type Clock, cryptoRandom, serviceClock, systemClock } from "./lib/clock.ts";
import { type Config, ConfigError, parseEnv } from "./lib/config.ts";
import { log } from "./lib/log.ts";
import { headerTrustWarning } from "./lib/client_ip.ts";
import { b64url } from "./lib/tokens.ts";
import { VERSION } from "./lib/version.ts";
import { openStore } from "./lib/store/commit.ts";
import { connectionLimit, descriptorLimit, serveBounded } from "./lib/http/serve.ts";
import { adminHint, adminUrl, type SecretSource } from "./lib/admin/first_run.ts";

/** True on Deno Deploy, where KV is managed and the file system is read-only. */
function onDeploy(): boolean {
  return Deno.env.get("DENO_DEPLOYMENT_ID") !== undefined;
}

/**
 * Uses TOKEN_SECRET, or outside production generates one: kept beside a local KV file and printed
 * once, at generation; with `:memory:` printed at every start (nothing is kept). A KV Connect
 * store needs it set: every instance sharing the store must verify the others' tokens.
 */
async function resolveSecret(
  env: ReturnType<typeof parseEnv>,
): Promise<{ secret: string; source: SecretSource }> {
  if (env.TOKEN_SECRET) return { secret: env.TOKEN_SECRET, source: { kind: "set" } };
  if (env.TOLLGATE_ENV === "production" || onDeploy()) {
    throw new ConfigError("invalid TOKEN_SECRET: required in production (and on Deno Deploy)");
  }
  if (/^https?:/.test(env.DENO_KV_PATH)) {
    throw new ConfigError(
      "invalid TOKEN_SECRET: required with a KV Connect store (DENO_KV_PATH=http(s)://…): every " +
        "instance sharing it must have the same one",
    );
  }
  if (env.DENO_KV_PATH === ":memory:") {
    const secret = b64url(crypto.getRandomValues(new Uint8Array(32)));
    console.log(`Generated TOKEN_SECRET (DENO_KV_PATH=:memory: keeps nothing): ${secret}`);
    return { secret, source: { kind: "shown" } };
  }
  const dir = env.DENO_KV_PATH.includes("/")
    ? env.DENO_KV_PATH.slice(0, env.DENO_KV_PATH.lastIndexOf("/")) || "/"
    : ".";
  const file = `${dir}/token-secret`;
  let stored: string | null = null;
  try {
    stored = (await Deno.readTextFile(file)).trim();
  } catch { /* not generated yet */ }
  if (stored !== null) {
    if (stored.length < 32) {
      throw new ConfigError(`invalid ${file}: the stored secret must be at least 32 characters`);
    }
    return { secret: stored, source: { kind: "file", path: file } };
  }
  await Deno.mkdir(dir, { recursive: true });
  const secret = b64url(crypto.getRandomValues(new Uint8Array(32)));
  await Deno.writeTextFile(file, secret + "\n", { mode: 0o600 });
  // Printed once, at generation, so the operator can claim the admin account.
  console.log(`Generated TOKEN_SECRET (stored in ${file}, shown only now): ${secret}`);
  return { secret, source: { kind: "file", path: file } };
}

async function main() {
  let config: Config;
  let clock: Clock;
  let secretSource: SecretSource;
  const clockOrigin = Date.now();
  try {
    const env = parseEnv(Deno.env.toObject());
    const resolved = await resolveSecret(env);
    config = { ...env, TOKEN_SECRET: resolved.secret };
    secretSource = resolved.source;
    const production = env.TOLLGATE_ENV === "production" || onDeploy();
    try {
      clock = serviceClock(env.TOLLGATE_CLOCK_SPEED, production, clockOrigin);
    } catch (e) {
      throw new ConfigError((e as Error).message);
    }
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(`tollgate: ${e.message}`);
      Deno.exit(1);
    }
    throw e;
  }
  // A client-address header believed from anyone is a hole only the operator can close: said once.
  const trust = headerTrustWarning(config);
  if (trust) log("warn", "client address header trusted from every peer", trust);
  // On Deno Deploy without an explicit path, the project's managed KV.
  const managed = onDeploy() && !Deno.env.get("DENO_KV_PATH");
  const path = managed ? "(Deno Deploy managed KV)" : config.DENO_KV_PATH;
  if (!managed && path !== ":memory:" && !/^https?:/.test(path) && path.includes("/")) {
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")) || "/", { recursive: true });
  }
  const kv = await openStore(managed ? undefined : path);
  const { fetch: serve, services } = await createApp({
    kv,
    clock,
    config,
    fetch: globalThis.fetch,
    random: cryptoRandom,
  });
  const tickAll = () =>
    services.engine.queueNames().then((qs) =>
      qs.forEach((q) => services.engine.maybeTick(q, true))
    );
  // Per-second admission in long-lived processes; requests also tick, and cron is the net.
  setInterval(() => {
    void tickAll().catch(() => {});
    // The e-mail a visitor asked for at its turn, sent off every request (lib/notify/mail_job.ts).
    void services.mailJob();
  }, 1000);
  // Stopped by a signal, the process exits at once as before, but through `Deno.exit`: unload
  // handlers run and a `--cpu-prof` profile is written (bench/RESULTS.md's profiles use it).
  for (const sig of ["SIGINT", "SIGTERM"] as const) Deno.addSignalListener(sig, () => Deno.exit(0));
  // The net also sends turn e-mails an idle isolate (Deno Deploy) would otherwise keep waiting.
  cronTick = () => tickAll().finally(() => services.mailJob());
  // Connections bounded (cap under the descriptor limit, header and idle timeouts), and accept
  // kept going when descriptors run out: a flood of idle connections must not end the process.
  const fds = descriptorLimit();
  const maxConnections = connectionLimit(config.MAX_CONNECTIONS, fds);
  serveBounded({
    port: config.PORT,
    maxConnections,
    serveAddress: Deno.env.get("DENO_SERVE_ADDRESS"),
    platformServes: onDeploy(),
    headerTimeoutMs: config.HEADER_TIMEOUT_MS,
    idleTimeoutMs: config.IDLE_TIMEOUT_MS,
    onListen: ({ hostname, port }) => {
      const url = `http://${hostname === "0.0.0.0" ? "localhost" : hostname}:${port}/`;
      log("info", "tollgate listening", {
        version: VERSION,
        url,
        kv: path,
        queues: config.QUEUES,
        maxConnections,
        descriptorLimit: fds,
        // Said at start: an operator reading the log of an outage must know which policy ran.
        storeFailure: config.STORE_FAILURE === "open"
          ? `open (at most ${config.STORE_FAILURE_OPEN_SECONDS} s)`
          : "closed",
        // A simulated clock says so, with what a load driver needs to follow it.
        ...(clock === systemClock ? {} : {
          clockSpeed: config.TOLLGATE_CLOCK_SPEED,
          clockOrigin,
        }),
      });
      // Where the admin app is and how to get in (the first visit claims it with the secret).
      void adminHint(kv, secretSource).then(
        (next) =>
          log("info", "admin app", {
            url: adminUrl(config.PUBLIC_URL, url, config.BASE_PATH),
            next,
          }),
        () => {},
      );
    },
  }, serve);
}

/** What the once-a-minute safety net runs; set once the app is up. */
let cronTick: () => Promise<void> = () => Promise.resolve();

// Registered at the top level and unconditionally, as Deno Deploy requires (it reads cron
// registrations when the module loads); admission does not depend on it.
Deno.cron("tollgate-admission-safety-net", "* * * * *", () => cronTick());
if (import.meta.main) await main();
