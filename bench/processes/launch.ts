import { join } from 'node:path';
import type { ChildRegistry, ManagedChild } from './children.js';

/** The admin key the bench gw bootstraps with (local, in-memory store: it exists only for this run). */
export const BENCH_ADMIN_KEY = 'gwk_bench_admin_key_0123456789abcdef';

const WATCHDOG = './bench/processes/parent-watchdog.mjs';

/**
 * A small, explicit environment for children: nothing from the caller's shell leaks in (no cloud credentials,
 * no NODE_OPTIONS, no log-level overrides), so every run measures the same configuration.
 */
export function childEnvironment(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ']) if (process.env[name] !== undefined) env[name] = process.env[name];
  return { ...env, ...extra };
}

export interface MockProcess {
  url: string;
  child: ManagedChild;
  /** How often each mode (fast, delayed, failing) was called so far. */
  stats(): Promise<Record<string, number>>;
}

/** The port a bench process announces with its `{"event":"ready","port":…}` line. */
function readyPort(child: ManagedChild): Promise<number> {
  return child.waitForLine((line) => {
    if (!line.startsWith('{')) return undefined;
    const parsed = JSON.parse(line) as { event?: string; port?: number };
    return parsed.event === 'ready' ? parsed.port : undefined;
  }, 30_000);
}

export async function startMock(registry: ChildRegistry, root: string): Promise<MockProcess> {
  const child = registry.start({
    runtime: 'measured',
    name: 'mock upstream',
    nodeArgs: ['--import', WATCHDOG, '--import', 'tsx', 'bench/mock/server.ts'],
    cwd: root,
    env: childEnvironment({}),
  });
  const url = `http://127.0.0.1:${await readyPort(child)}`;
  return {
    url,
    child,
    stats: async () => (await (await fetch(`${url}/__bench/stats`)).json()) as Record<string, number>,
  };
}

/** The minimal Node proxy in front of the mock (bench/mock/reference-proxy.ts): the floor gw is compared with. */
export async function startReferenceProxy(registry: ChildRegistry, root: string, mockUrl: string): Promise<{ url: string; child: ManagedChild }> {
  const child = registry.start({
    runtime: 'measured',
    name: 'reference proxy',
    nodeArgs: ['--import', WATCHDOG, '--import', 'tsx', 'bench/mock/reference-proxy.ts'],
    cwd: root,
    env: childEnvironment({ BENCH_UPSTREAM: mockUrl }),
  });
  return { url: `http://127.0.0.1:${await readyPort(child)}`, child };
}

/** The AWS-shaped phase's DynamoDB-compatible store, in a process of its own (bench/processes/store-server.ts). */
export async function startBenchStore(registry: ChildRegistry, root: string): Promise<{ url: string; child: ManagedChild }> {
  const child = registry.start({
    runtime: 'measured',
    name: 'bench store',
    nodeArgs: ['--import', WATCHDOG, '--import', 'tsx', 'bench/processes/store-server.ts'],
    cwd: root,
    env: childEnvironment({}),
  });
  return { url: `http://127.0.0.1:${await readyPort(child)}`, child };
}

/** What the gw process wrote to stdout: its Powertools log lines, counted as they are drained. */
export interface GwLogCounters {
  lines: number;
  requestCompleted: number;
  /** Requests gw answered with something other than 200, by `<status> <error_code>`, from its log lines. */
  failedRequests: Record<string, number>;
  errors: number;
  errorSamples: string[];
  /** ERROR lines saying a charge could neither be written nor journaled (counted apart: the samples keep only 5). */
  unjournaledCharges: number;
}

export interface GwProcess {
  url: string;
  child: ManagedChild;
  logs: GwLogCounters;
}

export interface GwLaunchOptions {
  /** Write a V8 CPU profile of the gw process into this directory when it stops. */
  cpuProfileDir?: string;
  /** Run this ahead-compiled bundle of infra/local/main.ts instead of the sources through tsx (see compile-gw.ts). */
  compiledEntry?: string;
  /** Extra settings for investigations (`--gw-env NAME=VALUE`); the report lists them, as they change what is measured. */
  extraEnv?: Record<string, string>;
  /** How errors name this gw (a second gw runs in the AWS-shaped phase). */
  name?: string;
}

/** The command line gw runs with, as the report shows it. */
export function gwCommand(options: GwLaunchOptions): string {
  return options.compiledEntry ? `node ${options.compiledEntry} (infra/local/main.ts compiled ahead by esbuild)` : 'node --import tsx infra/local/main.ts';
}

/**
 * Starts gw as a user runs it (`npm start` = tsx on infra/local/main.ts) with an in-memory store, logging at
 * Powertools' default INFO level and request logs on. Its stdout is a pipe that the harness drains and counts.
 */
export async function startGw(registry: ChildRegistry, root: string, options: GwLaunchOptions = {}): Promise<GwProcess> {
  const profiling = options.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${join(options.cpuProfileDir)}`] : [];
  const program = options.compiledEntry ? [options.compiledEntry] : ['--import', 'tsx', 'infra/local/main.ts'];
  const child = registry.start({
    runtime: 'measured',
    name: options.name ?? 'gw',
    nodeArgs: ['--import', WATCHDOG, ...profiling, ...program],
    cwd: root,
    env: childEnvironment({
      PORT: '0',
      HOST: '127.0.0.1',
      GW_DATA_DIR: ':memory:',
      GW_BOOTSTRAP_API_KEY: BENCH_ADMIN_KEY,
      GW_REQUEST_LOGS: 'ON',
      POWERTOOLS_LOG_LEVEL: 'INFO',
      POWERTOOLS_DEV: 'false',
      ...options.extraEnv,
    }),
  });
  const logs: GwLogCounters = { lines: 0, requestCompleted: 0, failedRequests: {}, errors: 0, errorSamples: [], unjournaledCharges: 0 };
  const countError = (line: string) => {
    if (!line.includes('"level":"ERROR"')) return;
    logs.errors++;
    if (line.includes('could not be journaled')) logs.unjournaledCharges++;
    if (logs.errorSamples.length < 5) logs.errorSamples.push(line.slice(0, 1000));
  };
  child.onLine((line) => {
    logs.lines++;
    // Cheap substring tests first: the harness must keep up with thousands of lines a second.
    if (line.includes('"message":"request completed"')) {
      logs.requestCompleted++;
      if (!line.includes('"status":200')) {
        const status = /"status":(\d+)/.exec(line)?.[1] ?? '?';
        const code = /"error_code":"([^"]+)"/.exec(line)?.[1] ?? '';
        const key = `${status} ${code}`.trim();
        logs.failedRequests[key] = (logs.failedRequests[key] ?? 0) + 1;
      }
    }
    countError(line);
  });
  // Powertools writes ERROR lines to stderr.
  child.onStderrLine(countError);
  const url = await child.waitForLine((line) => /^gw is listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(line)?.[1], 60_000);
  return { url, child, logs };
}
