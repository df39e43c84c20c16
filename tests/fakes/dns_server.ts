/**
 * A fake DNS server on loopback UDP, run as its own process (UDP sockets need `--unstable-net`,
 * which the test run does not have): answers A and AAAA queries from a table that lines on
 * stdin replace (`name=addr,addr`), so a test can change an answer between two lookups.
 * Prints its port on the first line of stdout. Names not in the table get NXDOMAIN.
 *
 * Start it with `startDnsServer()` from a test.
 */

/** A running fake DNS server. */
export interface DnsServer {
  nameServer: { ipAddr: string; port: number };
  /** Sets the addresses `name` resolves to (IPv4 and IPv6 mixed); resolves once applied. */
  set(name: string, addresses: string[]): Promise<void>;
  close(): Promise<void>;
}

/** Spawns the server and waits for its port. */
export async function startDnsServer(): Promise<DnsServer> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--unstable-net", "--allow-net", new URL(import.meta.url).pathname],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const writer = child.stdin.getWriter();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  const nextLine = async () => {
    while (!buffered.includes("\n")) {
      const { value, done } = await lines.read();
      if (done) throw new Error("fake DNS server ended");
      buffered += value;
    }
    const i = buffered.indexOf("\n");
    const line = buffered.slice(0, i);
    buffered = buffered.slice(i + 1);
    return line;
  };
  const port = Number(await nextLine());
  return {
    nameServer: { ipAddr: "127.0.0.1", port },
    async set(name, addresses) {
      await writer.write(new TextEncoder().encode(`${name}=${addresses.join(",")}\n`));
      await nextLine(); // "ok"
    },
    async close() {
      await writer.close().catch(() => {});
      await lines.cancel().catch(() => {});
      await child.status;
    },
  };
}

function v6Bytes(s: string): number[] {
  const [head, tail] = s.split("::");
  const h = head ? head.split(":") : [], t = tail !== undefined && tail ? tail.split(":") : [];
  const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill("0"), ...t];
  return groups.flatMap((g) => [parseInt(g, 16) >> 8, parseInt(g, 16) & 255]);
}

/** The answer to one query packet. */
function answer(q: Uint8Array, table: Map<string, string[]>): Uint8Array {
  let at = 12;
  const labels: string[] = [];
  while (q[at] !== 0) {
    labels.push(new TextDecoder().decode(q.slice(at + 1, at + 1 + q[at])));
    at += q[at] + 1;
  }
  const qtype = (q[at + 1] << 8) | q[at + 2];
  const question = q.slice(12, at + 5);
  const name = labels.join(".").toLowerCase();
  const known = table.get(name);
  const records = (known ?? []).filter((a) => qtype === 28 ? a.includes(":") : !a.includes(":"))
    .filter(() => qtype === 1 || qtype === 28);
  const head = [q[0], q[1], 0x81, known ? 0x80 : 0x83, 0, 1, 0, records.length, 0, 0, 0, 0];
  const body: number[] = [];
  for (const r of records) {
    const data = r.includes(":") ? v6Bytes(r) : r.split(".").map(Number);
    body.push(0xc0, 12, 0, qtype, 0, 1, 0, 0, 0, 1, 0, data.length, ...data);
  }
  return new Uint8Array([...head, ...question, ...body]);
}

if (import.meta.main) {
  const table = new Map<string, string[]>();
  const sock = Deno.listenDatagram({ hostname: "127.0.0.1", port: 0, transport: "udp" });
  console.log((sock.addr as Deno.NetAddr).port);
  (async () => {
    const lines = Deno.stdin.readable.pipeThrough(new TextDecoderStream());
    let buf = "";
    for await (const chunk of lines) {
      buf += chunk;
      let i;
      while ((i = buf.indexOf("\n")) >= 0) {
        const [name, list] = buf.slice(0, i).split("=");
        buf = buf.slice(i + 1);
        table.set(name.toLowerCase(), list ? list.split(",") : []);
        console.log("ok");
      }
    }
    sock.close();
  })();
  try {
    for await (const [packet, from] of sock) await sock.send(answer(packet, table), from);
  } catch { /* closed */ }
}
