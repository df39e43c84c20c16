/**
 * The deployment files cannot drift from the code they deploy: the systemd unit and the container
 * run `main.ts` with exactly the `start` task's permissions, the env example documents every
 * config variable and nothing else, with values the service accepts, the image uses the Deno
 * version CI installs and copies every module the service imports. (The guide's links are checked
 * with every other page's in docs_links_test.ts.)
 */
import { ConfigError, parseEnv } from "../lib/config.ts";
import { assert, assertEquals } from "./assert.ts";

const ROOT = new URL("../", import.meta.url);
const read = (path: string) => Deno.readTextFile(new URL(path, ROOT));

/** Variables the env example may set that Deno itself reads, not Tollgate's config. */
const RUNTIME_VARS = [
  "DENO_KV_ACCESS_TOKEN",
  "OTEL_DENO",
  "OTEL_SERVICE_NAME",
  "OTEL_EXPORTER_OTLP_ENDPOINT",
];
/** Variables whose example value is what the unit and the image set, not the service default. */
const SET_BY_UNIT = ["DENO_KV_PATH"];

/** Permission flags in a command line, sorted (other flags such as --cached-only are free). */
function permissionFlags(args: string[]): string[] {
  return args.filter((a) => /^(-A|--allow-[a-z-]+(=.*)?|--deny-[a-z-]+(=.*)?)$/.test(a)).sort();
}

async function startTaskArgs(): Promise<string[]> {
  const start: string = JSON.parse(await read("deno.json")).tasks.start;
  const run = start.split("&&").map((s) => s.trim()).find((s) => s.startsWith("deno run "));
  assert(run, `no "deno run" in the start task: ${start}`);
  return run.split(/\s+/);
}

/** `Key=value` lines of a systemd unit, in order (a key may repeat). */
function unitEntries(unit: string): [string, string][] {
  return unit.split("\n").filter((l) => /^[A-Za-z]+=/.test(l)).map((l) => {
    const i = l.indexOf("=");
    return [l.slice(0, i), l.slice(i + 1)];
  });
}

/** The keys of lib/config.ts's EnvSchema (not exported), read from its source. */
async function configKeys(): Promise<string[]> {
  const src = await read("lib/config.ts");
  const from = src.indexOf("const EnvSchema = z.object({");
  assert(from >= 0, "EnvSchema not found in lib/config.ts");
  const body = src.slice(from, src.indexOf("\n});", from));
  const keys = [...body.matchAll(/^ {2}([A-Z][A-Z0-9_]*):/gm)].map((m) => m[1]);
  // Cross-check against parseEnv itself: it reads exactly the schema's keys, so a probe value
  // for a real key is either rejected by name or returned; an unknown key is ignored.
  const defaults = parseEnv({}) as Record<string, unknown>;
  for (const k of keys) {
    let seen: boolean;
    try {
      const got = parseEnv({ [k]: "probe-value" }) as Record<string, unknown>;
      seen = JSON.stringify(got[k]) !== JSON.stringify(defaults[k]);
    } catch (e) {
      seen = e instanceof ConfigError && e.message.startsWith(`invalid ${k}=`);
    }
    assert(seen, `parseEnv does not read ${k}: the EnvSchema parse is off`);
  }
  for (const k of Object.keys(defaults)) assert(keys.includes(k), `${k} missed by the parse`);
  return keys;
}

/** `NAME=value` settings of the env example, active or commented out (`# NAME=value`). */
async function exampleSettings(): Promise<{ name: string; value: string; active: boolean }[]> {
  const text = await read("deploy/tollgate.env.example");
  return [...text.matchAll(/^(# )?([A-Z][A-Z0-9_]*)=(.*)$/gm)].map((m) => ({
    name: m[2],
    value: m[3],
    active: !m[1],
  }));
}

Deno.test("the systemd unit and the image run main.ts with the start task's permission flags", async () => {
  const start = await startTaskArgs();
  assertEquals(start.at(-1), "main.ts");
  const expected = permissionFlags(start);
  assert(expected.length > 0, "the start task grants permissions");

  const unit = unitEntries(await read("deploy/tollgate.service"));
  const execStart = unit.filter(([k]) => k === "ExecStart").map(([, v]) => v);
  assertEquals(execStart.length, 1, "one ExecStart");
  const unitArgs = execStart[0].split(/\s+/);
  assertEquals(unitArgs.slice(1, 2), ["run"]);
  assertEquals(unitArgs.at(-1), "main.ts");
  assertEquals(permissionFlags(unitArgs), expected, "unit ExecStart");

  const containerfile = await read("deploy/Containerfile");
  const cmd = containerfile.match(/^CMD (\[.*\])$/m);
  assert(cmd, "the Containerfile has an exec-form CMD");
  const cmdArgs: string[] = JSON.parse(cmd[1]);
  assertEquals(cmdArgs.slice(0, 2), ["deno", "run"]);
  assertEquals(cmdArgs.at(-1), "main.ts");
  assertEquals(permissionFlags(cmdArgs), expected, "Containerfile CMD");
});

Deno.test("the KV file sits in the directory the unit may write and the image keeps in a volume", async () => {
  const unit = unitEntries(await read("deploy/tollgate.service"));
  const env = unit.filter(([k]) => k === "Environment").map(([, v]) => v);
  const kvPath = env.find((e) => e.startsWith("DENO_KV_PATH="))?.slice("DENO_KV_PATH=".length) ??
    "";
  assert(kvPath.startsWith("/"), `absolute DENO_KV_PATH in the unit: ${kvPath}`);
  const dir = kvPath.slice(0, kvPath.lastIndexOf("/"));
  const get = (k: string) => unit.find(([key]) => key === k)?.[1] ?? "";
  assertEquals(`/var/lib/${get("StateDirectory")}`, dir, "StateDirectory holds the KV file");
  assert(get("ReadWritePaths").split(/\s+/).includes(dir), "ReadWritePaths holds the KV file");
  assertEquals(get("ProtectSystem"), "strict");
  assertEquals(get("Restart"), "always");
  assert(get("EnvironmentFile").length > 0, "settings come from an EnvironmentFile");

  const containerfile = await read("deploy/Containerfile");
  const imageKv = containerfile.match(/DENO_KV_PATH=(\S+)/)?.[1] ?? "";
  const volume = containerfile.match(/^VOLUME (\S+)$/m)?.[1];
  assertEquals(volume, imageKv.slice(0, imageKv.lastIndexOf("/")), "the VOLUME holds the KV file");
});

Deno.test("the unit and the image raise the descriptor limit (one descriptor per connection)", async () => {
  const unit = unitEntries(await read("deploy/tollgate.service"));
  const limit = Number(unit.find(([k]) => k === "LimitNOFILE")?.[1]);
  assert(limit >= 65536, `LimitNOFILE=${limit}`);
  const containerfile = await read("deploy/Containerfile");
  const entry = containerfile.match(/^ENTRYPOINT (\[.*\])$/m);
  assert(entry, "the Containerfile has an exec-form ENTRYPOINT");
  const args: string[] = JSON.parse(entry[1]);
  assertEquals(args.slice(0, 2), ["/tini", "--"], "the official image's init stays first");
  assert(args.some((a) => a.includes('ulimit -n "$(ulimit -Hn)"')), "soft limit raised to hard");
  assert(args.some((a) => a.includes('exec docker-entrypoint.sh "$@"')), "then the image's entry");
});

Deno.test("the env example documents every config variable, nothing else, and no secret", async () => {
  const keys = await configKeys();
  const settings = await exampleSettings();
  const names = settings.map((s) => s.name);
  for (const k of keys) assert(names.includes(k), `${k} is missing from tollgate.env.example`);
  for (const n of names) {
    assert(keys.includes(n) || RUNTIME_VARS.includes(n), `${n} is not a config variable`);
  }
  assertEquals(new Set(names).size, names.length, "each variable once");
  for (const s of settings.filter((s) => /SECRET|TOKEN$/.test(s.name))) {
    assertEquals(s.value, "", `${s.name} ships without a value`);
  }
});

Deno.test("every example value in the env example is accepted, and shown defaults are the defaults", async () => {
  const defaults = parseEnv({}) as Record<string, unknown>;
  for (const { name, value, active } of await exampleSettings()) {
    if (RUNTIME_VARS.includes(name) || value === "") continue;
    const parsed = parseEnv({ [name]: value }) as Record<string, unknown>; // throws when invalid
    const def = defaults[name];
    if (!active && def !== undefined && !SET_BY_UNIT.includes(name)) {
      assertEquals(parsed[name], def, `${name}=${value} is shown as the default`);
    }
  }
});

Deno.test("the image and the guide use the Deno version CI installs", async () => {
  const pinned = (await read(".ci/run")).match(/^DENO_VERSION=(\S+)$/m)?.[1];
  assert(pinned, ".ci/run pins DENO_VERSION");
  const containerfile = await read("deploy/Containerfile");
  assertEquals(containerfile.match(/^FROM denoland\/deno:(\S+)$/m)?.[1], pinned, "FROM tag");
  const guide = await read("docs/deploy.md");
  const mentioned = [
    ...guide.matchAll(
      /deno@(\d+\.\d+\.\d+)|denoland\/deno:(\d+\.\d+\.\d+)|sh -s v(\d+\.\d+\.\d+)/g,
    ),
  ].map((m) => m[1] ?? m[2] ?? m[3]);
  assert(mentioned.length > 0, "the guide names the Deno version");
  for (const v of mentioned) assertEquals(v, pinned, "Deno version in docs/deploy.md");
});

Deno.test("the image copies every local module the service, the doctor and the build import", async () => {
  const containerfile = await read("deploy/Containerfile");
  const copied = new Set(
    [...containerfile.matchAll(/^COPY (?!--)(.+)$/gm)].flatMap((m) =>
      m[1].trim().split(/\s+/).slice(0, -1).map((s) => s.replace(/\/$/, ""))
    ),
  );
  const needed = new Set(["deno.json", "deno.lock"]);
  for (const entry of ["main.ts", "scripts/doctor.ts", "scripts/build.ts", "client/wait.tsx"]) {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", entry],
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert(out.success, `deno info ${entry}: ${new TextDecoder().decode(out.stderr)}`);
    const info = JSON.parse(new TextDecoder().decode(out.stdout));
    for (const m of info.modules as { specifier: string }[]) {
      if (!m.specifier.startsWith(ROOT.href)) continue;
      needed.add(m.specifier.slice(ROOT.href.length).split("/")[0]);
    }
  }
  for (const n of needed) assert(copied.has(n), `the Containerfile does not COPY ${n}`);
});

const systemdAnalyze = await new Deno.Command("systemd-analyze", { args: ["--version"] })
  .output().then((o) => o.success, () => false);

Deno.test({
  name: "systemd-analyze accepts the unit (every key known, the command executable)",
  ignore: !systemdAnalyze,
  fn: async () => {
    // The unit names /usr/local/bin/deno; verify it against the deno running this test.
    const dir = await Deno.makeTempDir();
    try {
      const unit = (await read("deploy/tollgate.service"))
        .replace("ExecStart=/usr/local/bin/deno ", `ExecStart=${Deno.execPath()} `);
      await Deno.writeTextFile(`${dir}/tollgate.service`, unit);
      const out = await new Deno.Command("systemd-analyze", {
        args: ["verify", `${dir}/tollgate.service`],
        stdout: "piped",
        stderr: "piped",
      }).output();
      const said = new TextDecoder().decode(out.stderr) + new TextDecoder().decode(out.stdout);
      assert(out.success, said);
      assertEquals(said.trim(), "", "systemd-analyze has no complaint");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
