import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The parts of a V8 `.cpuprofile` (written by `node --cpu-prof`) this summary reads. */
export interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: CallFrame; children?: number[] }>;
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface TimeEntry {
  name: string;
  ms: number;
  percent: number;
}

export interface ProfileSummary {
  file: string;
  totalMs: number;
  /** Sampled time not spent idle (the `(idle)` and `(program)` pseudo-frames excluded). */
  busyMs: number;
  topFunctions: TimeEntry[];
  /** Self time grouped by where the code lives: a package under node_modules, a project folder, or node itself. */
  byOrigin: TimeEntry[];
  /** gw's own functions (shared/, infra/, functions/) with everything they call: where the time is spent from. */
  projectInclusive: TimeEntry[];
  /** Set when only part of the profile was summarised (the measured phases, not start-up). */
  window?: string;
}

const PSEUDO_IDLE = new Set(['(idle)', '(program)']);
const PROJECT_PATH = /(?:^|\/)((?:shared|infra|functions|bench)\/.*)$/;

/** Where a frame's code comes from: `dynalite`, `@aws-sdk/client-dynamodb`, `shared/gateway`, `node:internal`, … */
export function originOf(path: string): string {
  if (path === '') return '(native/VM)';
  if (path.startsWith('node:')) return path.startsWith('node:internal') ? 'node:internal' : path;
  const modules = path.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const parts = path.slice(modules + 'node_modules/'.length).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  const project = PROJECT_PATH.exec(path)?.[1].split('/');
  return project && project.length > 2 ? `${project[0]}/${project[1]}` : (project?.join('/') ?? path.replace(/^file:\/\//, ''));
}

function shortPath(path: string): string {
  const modules = path.lastIndexOf('node_modules/');
  if (modules >= 0) return path.slice(modules + 'node_modules/'.length);
  return PROJECT_PATH.exec(path)?.[1] ?? path;
}

interface ResolvedFrame {
  name: string;
  origin: string;
  project: boolean;
}

/**
 * Names frames by source file and line. A frame in a file that has a source map beside it (the compiled gw
 * of `--cpu-prof`) is mapped back to the original TypeScript file and line.
 */
export class FrameNames {
  private readonly maps = new Map<string, SourceMap | undefined>();
  private readonly cache = new Map<string, ResolvedFrame>();

  resolve(frame: CallFrame): ResolvedFrame {
    const key = `${frame.url}:${frame.lineNumber}:${frame.columnNumber}:${frame.functionName}`;
    let resolved = this.cache.get(key);
    if (!resolved) {
      resolved = this.compute(frame);
      this.cache.set(key, resolved);
    }
    return resolved;
  }

  private compute(frame: CallFrame): ResolvedFrame {
    const functionName = frame.functionName || '(anonymous)';
    if (frame.functionName === '(garbage collector)') return { name: functionName, origin: functionName, project: false };
    let path = frame.url;
    let line = frame.lineNumber;
    const map = this.sourceMap(frame.url);
    const entry = map?.findEntry(frame.lineNumber, frame.columnNumber) as { originalSource?: string; originalLine?: number } | undefined;
    if (entry?.originalSource) {
      path = entry.originalSource.startsWith('file:') ? fileURLToPath(entry.originalSource) : resolve(dirname(fileURLToPath(frame.url)), entry.originalSource);
      line = entry.originalLine ?? line;
    }
    const origin = originOf(path);
    const project = /^(shared|infra|functions)\//.test(origin) || /^(shared|infra|functions)\//.test(shortPath(path));
    return { name: path ? `${functionName} ${shortPath(path)}:${line + 1}` : functionName, origin, project: project && !path.includes('node_modules/') };
  }

  private sourceMap(url: string): SourceMap | undefined {
    if (!url.startsWith('file:')) return undefined;
    if (!this.maps.has(url)) {
      const mapFile = `${fileURLToPath(url)}.map`;
      this.maps.set(url, existsSync(mapFile) ? new SourceMap(JSON.parse(readFileSync(mapFile, 'utf8'))) : undefined);
    }
    return this.maps.get(url);
  }
}

/**
 * Self time per function and per origin, and inclusive time of gw's own functions, largest first.
 * `fromMicros` (same monotonic clock as `process.hrtime`, in µs) leaves out samples before it: start-up.
 */
export function summarizeProfile(file: string, top = 25, fromMicros?: number): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const names = new FrameNames();
  const windowed = fromMicros !== undefined && fromMicros > profile.startTime && fromMicros < profile.endTime;
  const byFunction = new Map<string, number>();
  const byOrigin = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const add = (map: Map<string, number>, key: string, micros: number) => map.set(key, (map.get(key) ?? 0) + micros);
  let busyMicros = 0;
  let timestamp = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    const micros = profile.timeDeltas[i] ?? 0;
    timestamp += micros;
    if (windowed && timestamp < fromMicros) continue;
    const node = nodes.get(profile.samples[i]);
    if (!node || micros <= 0 || PSEUDO_IDLE.has(node.callFrame.functionName)) continue;
    busyMicros += micros;
    const self = names.resolve(node.callFrame);
    add(byFunction, self.name, micros);
    add(byOrigin, self.origin, micros);
    // Each project function on the stack gets the sample once, however deep it recurses.
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parents.get(id)) {
      const frame = nodes.get(id);
      if (!frame) continue;
      const resolved = names.resolve(frame.callFrame);
      if (!resolved.project || seen.has(resolved.name)) continue;
      seen.add(resolved.name);
      add(inclusive, resolved.name, micros);
    }
  }
  const rank = (map: Map<string, number>, limit: number): TimeEntry[] =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([name, micros]) => ({ name, ms: Math.round(micros / 100) / 10, percent: busyMicros > 0 ? Math.round((micros / busyMicros) * 1000) / 10 : 0 }));
  return {
    file,
    totalMs: Math.round((profile.endTime - profile.startTime) / 1000),
    busyMs: Math.round(busyMicros / 1000),
    topFunctions: rank(byFunction, top),
    byOrigin: rank(byOrigin, 15),
    projectInclusive: rank(inclusive, top),
    window: windowed ? `samples from ${Math.round((fromMicros - profile.startTime) / 1000)} ms after the process started (the measured phases)` : undefined,
  };
}

export function formatProfileSummary(summary: ProfileSummary): string {
  const row = (entry: TimeEntry) => `  ${entry.percent.toFixed(1).padStart(5)} %  ${entry.ms.toFixed(1).padStart(9)} ms  ${entry.name}`;
  return [
    `CPU profile ${summary.file}: ${summary.busyMs} ms busy of ${summary.totalMs} ms${summary.window ? `; ${summary.window}` : ''}`,
    '',
    'self time by origin:',
    ...summary.byOrigin.map(row),
    '',
    'self time by function:',
    ...summary.topFunctions.map(row),
    '',
    'inclusive time of gw functions (self + callees):',
    ...summary.projectInclusive.map(row),
  ].join('\n');
}

// `npx tsx bench/profile/summarize.ts <file.cpuprofile> [top] [from-µs]`
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [file, top, from] = process.argv.slice(2);
  if (!file) {
    console.error('usage: tsx bench/profile/summarize.ts <file.cpuprofile> [top] [from-µs]');
    process.exit(2);
  }
  console.log(formatProfileSummary(summarizeProfile(file, top ? Number(top) : 25, from ? Number(from) : undefined)));
}
