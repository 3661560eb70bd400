import { readdirSync, readFileSync } from 'node:fs';
import { cpuTimeMs, memoryOf } from './proc-stats.js';

/**
 * A process and everything it started (gw forks its embedded store into a child process): CPU and RSS of the
 * whole tree, and of each member, from Linux `/proc`. Elsewhere the tree is just the process itself and the
 * numbers read as undefined.
 */

/** The children of `pid`, from every thread's `/proc/<pid>/task/<tid>/children` (a fork from any thread counts). */
function childrenOf(pid: number): number[] {
  const children = new Set<number>();
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      try {
        for (const child of readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/)) {
          if (child) children.add(Number(child));
        }
      } catch {
        // The thread ended between the listing and the read.
      }
    }
  } catch {
    // Not Linux, or the process is gone.
  }
  return [...children];
}

/** `pid` and all its descendants, parent first. */
export function processTree(pid: number | undefined): number[] {
  if (pid === undefined) return [];
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) tree.push(...childrenOf(tree[i]).filter((child) => !tree.includes(child)));
  return tree;
}

/** The command name of a process (`/proc/<pid>/comm` is just "node" for every node child: use argv). */
export function processLabel(pid: number): string {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    const script = argv.slice(1).find((arg) => /\.(m?[jt]s)$/.test(arg) && !arg.includes('parent-watchdog'));
    return script ? script.split('/').slice(-2).join('/') : (argv[0] ?? String(pid));
  } catch {
    return String(pid);
  }
}

export interface TreeMemory {
  /** Sum of the members' RSS (shared pages counted once per process, as `ps` does). */
  totalRssBytes: number;
  /** The root process alone. */
  mainRssBytes: number;
  /** Everything below the root. */
  childrenRssBytes: number;
  members: Array<{ pid: number; label: string; rssBytes: number }>;
}

export function treeMemory(pid: number | undefined): TreeMemory | undefined {
  const members = processTree(pid)
    .map((member) => ({ pid: member, label: processLabel(member), rssBytes: memoryOf(member)?.rssBytes }))
    .filter((member): member is { pid: number; label: string; rssBytes: number } => member.rssBytes !== undefined);
  if (members.length === 0 || members[0].pid !== pid) return undefined;
  const totalRssBytes = members.reduce((sum, member) => sum + member.rssBytes, 0);
  return { totalRssBytes, mainRssBytes: members[0].rssBytes, childrenRssBytes: totalRssBytes - members[0].rssBytes, members };
}

/** CPU milliseconds of each member of the tree so far, by pid. */
function treeCpu(pid: number | undefined): Map<number, number> {
  const cpu = new Map<number, number>();
  for (const member of processTree(pid)) {
    const used = cpuTimeMs(member);
    if (used !== undefined) cpu.set(member, used);
  }
  return cpu;
}

/**
 * CPU used by a process tree while some work ran, per unit of work, in µs: the root alone and the whole tree.
 * A member that appears during the work counts from zero; one that exits during it is lost (its CPU goes to
 * the parent's cutime only when reaped, which /proc/<pid>/stat's utime/stime leave out), so long-lived
 * children such as gw's store are what this is for.
 */
export class TreeCpuMeter {
  private readonly start: Map<number, number>;

  constructor(private readonly pid: number | undefined) {
    this.start = treeCpu(pid);
  }

  perUnitMicros(units: number): { tree?: number; main?: number } {
    if (this.pid === undefined || units <= 0) return {};
    const end = treeCpu(this.pid);
    const mainEnd = end.get(this.pid);
    const mainStart = this.start.get(this.pid);
    if (mainEnd === undefined || mainStart === undefined) return {};
    let treeMs = 0;
    for (const [member, used] of end) treeMs += used - (this.start.get(member) ?? 0);
    return { tree: (treeMs * 1000) / units, main: ((mainEnd - mainStart) * 1000) / units };
  }
}
