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
import { powWorker } from "./pow_solvers.ts";

/** Clock ticks a second of `/proc` times (USER_HZ; 100 on every Linux that matters). */
const TICKS = 100;

/** CPU seconds used so far by process `pid` (user and system, all its threads); NaN if unknown. */
export function processCpu(pid: number | "self"): number {
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
 * Runs `threads` hashing threads (workers of this process, so at its nice level) for `ms` after a
 * warm-up, and counts their hashes and the CPU time this process used meanwhile.
 */
export async function calibrate(threads: number, ms = 3000): Promise<Calibration> {
  const workers = Array.from({ length: threads }, () => powWorker());
  // Every thread loaded and hashing before the measurement starts.
  const start = Date.now() + 1500;
  let cpu0 = NaN, wall0 = 0;
  const armed = setTimeout(
    () => (cpu0 = processCpu("self"), wall0 = Date.now()),
    start - Date.now(),
  );
  const counts = await Promise.all(workers.map((w) =>
    new Promise<number>((resolve) => {
      w.onmessage = (e) => resolve(e.data.hashes);
      w.postMessage({ role: "rate", start, ms });
    })
  ));
  clearTimeout(armed);
  const cpu = processCpu("self") - cpu0, wall = (Date.now() - wall0) / 1000;
  for (const w of workers) w.terminate();
  const hashes = counts.reduce((a, b) => a + b, 0);
  const wallRate = hashes / (ms / 1000);
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
