/**
 * The files of docs/examples/ as the proxy tests and bench/forward_auth.ts run them: the very
 * text, with only the ports (and what a caller names) substituted.
 */

const EXAMPLES = new URL("../docs/examples/", import.meta.url);

/** The ports a rendered example points at. */
export interface Ports {
  proxy: number;
  tollgate: number;
  site: number;
}

/**
 * An example's text with `swaps` applied: each `[from, to]` must occur, so an example that
 * drifts from what the tests expect fails here instead of testing something else.
 */
export function render(name: string, swaps: [string, string][]): string {
  let text = Deno.readTextFileSync(new URL(name, EXAMPLES));
  for (const [from, to] of swaps) {
    if (!text.includes(from)) {
      throw new Error(`docs/examples/${name} no longer contains ${JSON.stringify(from)}`);
    }
    text = text.replaceAll(from, to);
  }
  return text;
}

/** An nginx example for `ports`, with `extra` swaps after the ports'. */
export function renderNginx(ports: Ports, file = "nginx.conf", extra: [string, string][] = []) {
  return render(file, [
    ["listen 80;", `listen 127.0.0.1:${ports.proxy};`],
    ["127.0.0.1:8000", `127.0.0.1:${ports.tollgate}`],
    ["127.0.0.1:3000", `127.0.0.1:${ports.site}`],
    ...extra,
  ]);
}

/** nginx's command line for a config in `dir`: foreground, pid file and error log there too. */
export function nginxArgs(dir: string): string[] {
  return [
    "-c",
    `${dir}/nginx.conf`,
    "-p",
    dir,
    "-e",
    `${dir}/error.log`,
    "-g",
    `daemon off; pid ${dir}/nginx.pid;`,
  ];
}

/**
 * The optional check cache exactly as docs/forward-auth.md gives it (its two nginx blocks: the
 * `http` part and the check location's), as swaps for nginx.conf, its cache kept in `cacheDir`.
 */
export function checkCacheSwaps(cacheDir: string): [string, string][] {
  const doc = Deno.readTextFileSync(new URL("../forward-auth.md", EXAMPLES));
  const blocks = [...doc.matchAll(/```nginx\n([\s\S]*?)```/g)].map((m) => m[1]);
  if (blocks.length !== 2) throw new Error("docs/forward-auth.md: expected two nginx blocks");
  const indent = (text: string, pad: string) =>
    text.trimEnd().split("\n").map((l) => pad + l).join("\n") + "\n";
  const http = indent(blocks[0].replace("/var/cache/nginx/tollgate", cacheDir), "    ");
  return [
    ["    upstream tollgate {", `${http}\n    upstream tollgate {`],
    ["            internal;\n", "            internal;\n" + indent(blocks[1], "            ")],
  ];
}
