import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { watchGwStartup, type WatchedGw } from './local-process.js';
import { openAIMockHandler } from './mock-openai.js';
import { startMockUpstream, type MockUpstream } from './mock-upstream.js';

export const GW_PROCESS_KEY = 'gwk_log_faults_test_key_0123456789';

export interface GwProcess extends WatchedGw {
  pid: number;
  kill(signal: NodeJS.Signals): void;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * The local gw's entry point in a process of its own (`node --import tsx infra/local/main.ts`, what npm start
 * execs), on a free port with the test key; `fileSizeLimitKb` starts it under `ulimit -f` (every file it writes
 * stops growing there: a full disk, as the file system reports it to the writer: EFBIG).
 */
export async function spawnGw(env: Record<string, string>, options: { fileSizeLimitKb?: number } = {}): Promise<GwProcess> {
  const fullEnv = { ...process.env, PORT: String(await freePort()), GW_BOOTSTRAP_API_KEY: GW_PROCESS_KEY, POWERTOOLS_LOG_LEVEL: 'SILENT', GW_LOCAL_STORE: 'in-process', ...env };
  const node = [process.execPath, '--import', 'tsx', 'infra/local/main.ts'];
  const child =
    options.fileSizeLimitKb === undefined
      ? spawn(node[0], node.slice(1), { env: fullEnv, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn('bash', ['-c', `ulimit -S -f ${options.fileSizeLimitKb} && exec "$@"`, 'gw', ...node], { env: fullEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  return Object.assign(watchGwStartup(child), { pid: child.pid!, kill: (signal: NodeJS.Signals) => void child.kill(signal) });
}

/** Sends `count` chat completions through gw, `concurrency` at a time; returns the statuses. */
export async function sendChats(url: string, upstreamUrl: string, traceIds: string[], concurrency = 16, content = 'Hi'): Promise<number[]> {
  const statuses: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < traceIds.length) {
      const traceId = traceIds[next++];
      const response = await fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-gw-api-key': GW_PROCESS_KEY, 'x-gw-provider': 'openai', 'x-gw-custom-host': upstreamUrl, authorization: 'Bearer sk-x', 'x-gw-trace-id': traceId },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] }),
      });
      await response.arrayBuffer();
      statuses.push(response.status);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return statuses;
}

/** GET with the test key: status and JSON body. */
export async function getJson<T = Record<string, unknown>>(url: string): Promise<{ status: number; body: T }> {
  const response = await fetch(url, { headers: { 'x-gw-api-key': GW_PROCESS_KEY } });
  return { status: response.status, body: (await response.json()) as T };
}

export interface GwProcesses {
  /** The mock provider (OpenAI-shaped), started before the file's tests. */
  upstream(): MockUpstream;
  /** Spawns gw (spawnGw) and waits until it listens. */
  started(env: Record<string, string>, options?: { fileSizeLimitKb?: number }): Promise<{ gw: GwProcess; url: string }>;
  /** A new folder for a gw's data. */
  folder(prefix?: string): string;
}

/**
 * The set-up of the files that start, crash and restart gw in processes of their own: a mock provider, gw processes
 * started on demand, each with a temporary folder (TMPDIR) of its own, and data folders; after the file's tests every
 * process still running is killed and every folder removed (a gw killed with SIGKILL cleans nothing up itself).
 */
export function useGwProcesses(): GwProcesses {
  let upstream: MockUpstream | undefined;
  const folders: string[] = [];
  const running: GwProcess[] = [];
  const folder = (prefix = 'gw-process-data-') => {
    const path = mkdtempSync(join(tmpdir(), prefix));
    folders.push(path);
    return path;
  };
  beforeAll(async () => {
    upstream = await startMockUpstream(openAIMockHandler());
  });
  afterAll(async () => {
    for (const gw of running) gw.kill('SIGKILL');
    await Promise.all(running.map((gw) => gw.exited));
    await upstream?.close();
    for (const path of folders) rmSync(path, { recursive: true, force: true });
  });
  return {
    upstream: () => upstream!,
    folder,
    started: async (env, options = {}) => {
      const gw = await spawnGw({ TMPDIR: processTmpdir(folder('gw-process-tmp-')), ...env }, options);
      running.push(gw);
      return { gw, url: await gw.listening };
    },
  };
}

/** `path` as a process's TMPDIR, with tsx's compile cache linked in (a cold cache costs every start seconds). */
function processTmpdir(path: string): string {
  const cache = `tsx-${process.getuid?.() ?? 0}`;
  mkdirSync(join(tmpdir(), cache), { recursive: true });
  symlinkSync(join(tmpdir(), cache), join(path, cache));
  return path;
}
