import { readdirSync, readFileSync } from 'node:fs';
import { clockTicksPerSecond } from '../measure/proc-stats.js';

/**
 * CPU time of each thread of a process, grouped by the thread's name (Linux `/proc/<pid>/task/*`), for the A/B
 * tool's anatomy: a CPU profile samples wall-clock time of one JavaScript thread, while this is the kernel's count
 * of CPU for every thread: gw's event loop (`node`, the main thread's name), the DuckDB log worker's JavaScript
 * thread and DuckDB's own native threads, libuv's pool, V8's compiler and GC helpers. Elsewhere it reads empty.
 */
export type ThreadCpu = Map<string, number>;

export function threadCpuMs(pid: number | undefined): ThreadCpu {
  const byName: ThreadCpu = new Map();
  if (pid === undefined) return byName;
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return byName;
  }
  const tick = 1000 / clockTicksPerSecond();
  for (const task of tasks) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
      // The name is in parentheses and may hold spaces; the main thread's id is the process's own.
      const name = task === String(pid) ? 'main (event loop)' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      byName.set(name, (byName.get(name) ?? 0) + (Number(fields[11]) + Number(fields[12])) * tick);
    } catch {
      // The thread ended between listing and reading: its CPU is no longer counted (the difference shows it).
    }
  }
  return byName;
}

/** CPU per thread name between two readings, in µs per request. Threads that ended in between are left out. */
export function threadCpuPerRequest(before: ThreadCpu, after: ThreadCpu, requests: number): Array<[string, number]> {
  return [...after]
    .map(([name, ms]): [string, number] => [name, ((ms - (before.get(name) ?? 0)) * 1000) / Math.max(1, requests)])
    .filter(([, micros]) => micros > 0)
    .sort((a, b) => b[1] - a[1]);
}
