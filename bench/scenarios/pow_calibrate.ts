/**
 * What this machine's cores can hash, measured at the start of the proof-of-work attack scenario,
 * and where the machine's CPU time went during the run (Linux `/proc`).
 *
 * The capacity is counted per CPU second our threads actually got, times the cores: other work
 * on this shared machine during the measurement takes CPU time from our threads but does not
 * change how much one CPU second hashes, so a busy moment does not make the machine look slower
 * than it is. (A plain count per wall second read 0.7 to 6.4 million a second here, depending on
 * what else ran; see bench/RESULTS.md.)
 */
import process from "node:process";
import { powWorker } from "./pow_solvers.ts";

/** Clock ticks a second of `/proc` times (USER_HZ; 100 on every Linux that matters). */
const TICKS = 100;

/** CPU seconds used so far by process `pid` (user and system, all its threads); NaN if unknown. */
export function processCpu(pid: number | "self"): number {
  // This process from getrusage (Deno reads /proc only with --allow-all, which tests lack).
  if (pid === "self") {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
  }
  try {
    const s = Deno.readTextFileSync(`/proc/${pid}/stat`);
    // Fields after the command (which may hold spaces) start at state; utime and stime are 14, 15.
    const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) / TICKS;
  } catch {
    return NaN;
  }
}

/** The whole machine's CPU seconds so far: busy (not idle or waiting for I/O) and in all. */
export function machineCpu(): { busy: number; total: number } {
  try {
    const line = Deno.readTextFileSync("/proc/stat").split("\n")[0];
    const v = line.trim().split(/\s+/).slice(1, 9).map(Number);
    const total = v.reduce((a, b) => a + b, 0);
    return { busy: (total - v[3] - v[4]) / TICKS, total: total / TICKS };
  } catch {
    return { busy: NaN, total: NaN };
  }
}

/** CPU time between `start` and `stop`, in cores: this process, the server, the machine. */
export class CpuMeter {
  #from = { busy: 0, total: 0, self: 0, server: 0, at: 0 };
  #to = this.#from;

  constructor(private server: number) {}

  #now() {
    const at = Date.now();
    return { ...machineCpu(), self: processCpu("self"), server: processCpu(this.server), at };
  }

  /** Starts counting now. */
  start(): void {
    this.#from = this.#now();
  }

  /** Stops counting now. */
  stop(): void {
    this.#to = this.#now();
  }

  /** Cores' worth of CPU time meanwhile: this process (`devices`), the server, busy, in all. */
  cores(): { devices: number; server: number; busy: number; all: number } {
    const [a, b] = [this.#from, this.#to];
    const wall = Math.max(0.001, (b.at - a.at) / 1000);
    return {
      devices: (b.self - a.self) / wall,
      server: (b.server - a.server) / wall,
      busy: (b.busy - a.busy) / wall,
      all: (b.total - a.total) / wall,
    };
  }
}

/** This machine's cores (a cgroup CPU quota, where set, counts instead). */
export function cores(): number {
  try {
    const [quota, period] = Deno.readTextFileSync("/sys/fs/cgroup/cpu.max").trim().split(" ");
    if (quota !== "max") return Math.min(navigator.hardwareConcurrency, +quota / +period);
  } catch { /* no cgroup v2 quota */ }
  return navigator.hardwareConcurrency;
}

/** One calibration: hashes per CPU second, the cores, and what the threads got in wall time. */
export interface Calibration {
  threads: number;
  /** Hashes per wall second all threads did together while measured. */
  wallRate: number;
  /** CPU seconds per wall second our threads got (at most `cores`). */
  cpuShare: number;
  /** Hashes per CPU second: one core's speed. */
  perCore: number;
  cores: number;
  /** `perCore * cores`: what all threads hash a second when nothing else runs here. */
  capacity: number;
}

/**
 * Runs `threads` hashing threads (workers of this process, so at its nice level) and, once every
 * one is loaded and hashing, counts their hashes and the CPU time this process uses for `ms`.
 * (Counting from a fixed moment instead counted the loading of late workers on a busy machine:
 * 1.0 million a CPU second where it is 2.3.)
 */
export async function calibrate(threads: number, ms = 3000): Promise<Calibration> {
  const phase = new Int32Array(new SharedArrayBuffer(4));
  const workers = Array.from({ length: threads }, () => powWorker());
  const counts: Promise<number>[] = [];
  await Promise.all(workers.map((w, i) =>
    new Promise<void>((ready) => {
      counts[i] = new Promise<number>((done) => {
        w.onmessage = (e) => (e.data.ready ? ready() : done(e.data.hashes));
      });
      w.postMessage({ role: "rate", phase: phase.buffer });
    })
  ));
  await new Promise((r) => setTimeout(r, 200));
  const cpu0 = processCpu("self"), wall0 = Date.now();
  Atomics.store(phase, 0, 1);
  await new Promise((r) => setTimeout(r, ms));
  Atomics.store(phase, 0, 2);
  const cpu = processCpu("self") - cpu0, wall = (Date.now() - wall0) / 1000;
  const hashes = (await Promise.all(counts)).reduce((a, b) => a + b, 0);
  for (const w of workers) w.terminate();
  const wallRate = hashes / wall;
  const n = cores();
  // Without /proc, the wall rate is all there is (it reads low when the machine is busy).
  const perCore = Number.isFinite(cpu) && cpu > 0 ? hashes / cpu : wallRate / n;
  return {
    threads,
    wallRate,
    cpuShare: Number.isFinite(cpu) ? cpu / wall : NaN,
    perCore,
    cores: n,
    capacity: perCore * n,
  };
}

/** The server's join commits, from its /metrics text: how many, over 1 s, failed. */
export interface JoinCommits {
  count: number;
  overSecond: number;
  failed: number;
}

/** Reads `JoinCommits` from Prometheus text (the join op's commit histogram and failures). */
export function joinCommits(text: string): JoinCommits {
  const value = (name: string, ...labels: string[]) => {
    const line = text.split("\n").find((l) =>
      l.startsWith(name + "{") && labels.every((x) => l.includes(x))
    );
    return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) : 0;
  };
  const h = "tollgate_kv_commit_duration_seconds";
  const count = value(`${h}_count`, 'op="join"');
  return {
    count,
    overSecond: count - value(`${h}_bucket`, 'op="join"', 'le="1"'),
    failed: value("tollgate_kv_commit_failures_total", 'op="join"'),
  };
}
