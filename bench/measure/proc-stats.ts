import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * CPU time and memory of a process from Linux `/proc`. Elsewhere these read as undefined and the report says
 * "n/a": the harness still runs, it only cannot attribute CPU.
 */

let ticksPerSecond: number | undefined;

/** USER_HZ, the unit of utime/stime in /proc/<pid>/stat (almost always 100). */
export function clockTicksPerSecond(): number {
  if (ticksPerSecond !== undefined) return ticksPerSecond;
  try {
    ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8', timeout: 5_000 }).trim()) || 100;
  } catch {
    ticksPerSecond = 100;
  }
  return ticksPerSecond;
}

/** User + system CPU time the process has used so far, in milliseconds. */
export function cpuTimeMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may contain spaces: count fields after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    if (!Number.isFinite(utime) || !Number.isFinite(stime)) return undefined;
    return ((utime + stime) * 1000) / clockTicksPerSecond();
  } catch {
    return undefined;
  }
}

export interface MemorySample {
  rssBytes: number;
  /** The kernel's high-water mark of the resident set (VmHWM): the peak over the process's whole life. */
  peakRssBytes: number;
}

export function memoryOf(pid: number | undefined): MemorySample | undefined {
  if (pid === undefined) return undefined;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
    const rss = kib('VmRSS');
    const peak = kib('VmHWM');
    if (!Number.isFinite(rss) || !Number.isFinite(peak)) return undefined;
    return { rssBytes: rss * 1024, peakRssBytes: peak * 1024 };
  } catch {
    return undefined;
  }
}

/** CPU used by a process while `work` ran, per unit of work (e.g. per request), in microseconds. */
export class CpuMeter {
  private readonly startMs: number | undefined;

  constructor(private readonly pid: number | undefined) {
    this.startMs = cpuTimeMs(pid);
  }

  /** Total CPU milliseconds since construction. */
  elapsedMs(): number | undefined {
    const end = cpuTimeMs(this.pid);
    return end === undefined || this.startMs === undefined ? undefined : end - this.startMs;
  }

  perUnitMicros(units: number): number | undefined {
    const elapsed = this.elapsedMs();
    return elapsed === undefined || units <= 0 ? undefined : (elapsed * 1000) / units;
  }
}
