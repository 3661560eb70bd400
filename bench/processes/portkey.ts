import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { keepAliveAgent, timedRequest } from '../measure/http-probe.js';
import type { BenchEndpoints } from '../scenarios/requests.js';
import { checkChatJson, checkChatStream, portkeyChat } from '../scenarios/requests.js';
import type { ChildRegistry, ManagedChild } from './children.js';
import { childEnvironment } from './launch.js';

/**
 * Portkey's open-source gateway, run as a process beside gw so that issue #34's "3× Portkey" goals are measured
 * in the same run, on the same machine, against the same mock. Nothing of its code is copied: the pinned npm
 * package is installed once into a cache folder and its own server (`build/start-server.js`) is started.
 */
export const PORTKEY_PACKAGE = '@portkey-ai/gateway';
export const PORTKEY_VERSION = '1.15.2';
export const PORTKEY_CACHE_DIR = `node_modules/.cache/gw-bench/portkey-${PORTKEY_VERSION}`;
/**
 * Its HTTP adapter, pinned below what its `^1.3.3` range resolves to today. From @hono/node-server 1.14 on, a
 * `new Response(stream, fetchResponse)` keeps the fetch response's immutable headers, and Portkey 1.15.2 then fails
 * every streamed chat with a 500 (`TypeError: immutable` when it appends its own headers); 1.13.8 copies them,
 * and both JSON and streams work. Its WebSocket helper asks for a newer adapter only for /v1/realtime.
 */
export const PORTKEY_HTTP_ADAPTER = { name: '@hono/node-server', version: '1.13.8' } as const;

/** How it runs, for the report: its defaults, nothing turned off or on for the bench. */
export const PORTKEY_SETTINGS =
  `${PORTKEY_PACKAGE}@${PORTKEY_VERSION} (with ${PORTKEY_HTTP_ADAPTER.name}@${PORTKEY_HTTP_ADAPTER.version}: newer ones break its streams), node build/start-server.js --port=<free port> --headless, its defaults otherwise: ` +
  'no cache (a request asks for one with x-portkey-cache or a config; no Redis is configured, so none is shared), ' +
  'its per-request log record built in memory after each answer (the JSON body parsed again) for the log stream of its UI, which no client reads, nothing written to disk; ' +
  'no retries, no config; routed by headers (x-portkey-provider: openai, x-portkey-custom-host: the mock’s base URL). ' +
  'Its stream reader waits 25 ms before it passes on the first event (a fixed timer in its code, not the setup), which its streamed rows carry';

// Relative to the repository root, the child's working directory (as launch.ts starts its children).
const WATCHDOG = './bench/processes/parent-watchdog.mjs';
const LOOPBACK_ONLY = './bench/processes/loopback-only.mjs';
const INSTALL_TIMEOUT_MS = 5 * 60_000;
const START_TIMEOUT_MS = 30_000;
const CHECK_TIMEOUT_MS = 10_000;

export interface PortkeyProcess {
  url: string;
  child: ManagedChild;
}

/** Where the installed server lives inside the cache folder. */
export function portkeyServerScript(installDir: string): string {
  return join(installDir, 'node_modules', PORTKEY_PACKAGE, 'build', 'start-server.js');
}

/**
 * The manifest installed from: the pinned gateway, and its HTTP adapter overridden (an override, not a second
 * top-level package, because its WebSocket helper's peer range would otherwise pull the newer adapter back in).
 */
export function portkeyManifest(): Record<string, unknown> {
  return {
    name: 'gw-bench-portkey',
    private: true,
    description: 'Installed by the gw bench (bench/processes/portkey.ts) to measure Portkey beside gw; safe to delete.',
    dependencies: { [PORTKEY_PACKAGE]: PORTKEY_VERSION },
    overrides: { [PORTKEY_HTTP_ADAPTER.name]: PORTKEY_HTTP_ADAPTER.version },
  };
}

/** The command that installs it, as run (and as the README shows it). Its install scripts (patch-package, with no patches shipped) are not run. */
export function portkeyInstallArgs(prefix: string): string[] {
  return ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'];
}

/** The version of a package installed at the top of `installDir`, if any. */
function installedVersion(installDir: string, name: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(join(installDir, 'node_modules', name, 'package.json'), 'utf8')) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

/** A cache folder holds a usable install when its server is there with the pinned versions. */
export function isPortkeyInstalled(installDir: string): boolean {
  return existsSync(portkeyServerScript(installDir)) && installedVersion(installDir, PORTKEY_PACKAGE) === PORTKEY_VERSION && installedVersion(installDir, PORTKEY_HTTP_ADAPTER.name) === PORTKEY_HTTP_ADAPTER.version;
}

/**
 * Installs the pinned package once and reuses it. The install goes into a scratch folder that is renamed into
 * place only when it finished, so an install cut short (offline, Ctrl-C) never passes for a complete one.
 */
export async function installPortkey(root: string, log: (line: string) => void, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const installDir = join(root, PORTKEY_CACHE_DIR);
  if (isPortkeyInstalled(installDir)) return installDir;
  const scratch = `${installDir}.partial-${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  writeFileSync(join(scratch, 'package.json'), `${JSON.stringify(portkeyManifest(), null, 2)}\n`);
  log(`installing ${PORTKEY_PACKAGE}@${PORTKEY_VERSION} into ${PORTKEY_CACHE_DIR} (once)`);
  try {
    await promisify(execFile)('npm', portkeyInstallArgs(scratch), { cwd: scratch, timeout: INSTALL_TIMEOUT_MS, env, maxBuffer: 16 * 1024 * 1024 });
    if (!isPortkeyInstalled(scratch)) throw new Error(`npm install finished but ${portkeyServerScript(scratch)} or the pinned versions are missing`);
    rmSync(installDir, { recursive: true, force: true });
    renameSync(scratch, installDir);
    return installDir;
  } catch (error) {
    rmSync(scratch, { recursive: true, force: true });
    throw new Error(`npm install ${PORTKEY_PACKAGE}@${PORTKEY_VERSION} failed: ${npmFailure(error)}`, { cause: error });
  }
}

/** The lines of npm's error output that say why (its code and the failed request), not its stack or log hint. */
export function npmFailure(error: unknown): string {
  const stderr = (error as { stderr?: string }).stderr ?? '';
  const reasons = stderr
    .split('\n')
    .map((line) => line.replace(/^npm error\s*/, '').trim())
    .filter((line) => /^code |request to |^404|^403/.test(line));
  return reasons.length > 0 ? reasons.slice(0, 2).join('; ') : (error as Error).message;
}

/** Its server takes a port (`--port=`) but not 0: ask the system for a free one and hand that over. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((closed) => server.close(() => closed()));
  return port;
}

/**
 * Starts Portkey on the measured Node, on loopback only (its server would otherwise listen on every interface),
 * and waits for its "Ready for connections" banner.
 */
export async function startPortkey(registry: ChildRegistry, root: string, installDir: string, onSpawn?: (child: ManagedChild) => void): Promise<PortkeyProcess> {
  const port = await freePort();
  const child = registry.start({
    runtime: 'measured',
    name: 'portkey',
    // A comparison, not the subject: if it dies, its column is lost and the run says so, gw's phases go on.
    optional: true,
    nodeArgs: ['--import', WATCHDOG, '--import', LOOPBACK_ONLY, portkeyServerScript(installDir), `--port=${port}`, '--headless'],
    cwd: root,
    env: childEnvironment({}),
  });
  onSpawn?.(child);
  await child.waitForLine((line) => (line.includes('Ready for connections') ? true : undefined), START_TIMEOUT_MS);
  return { url: `http://127.0.0.1:${port}`, child };
}

/**
 * One JSON and one streamed request through Portkey must come back 200 with the mock's answer before anything is
 * measured: a misrouted Portkey answering fast errors would otherwise look like a fast gateway.
 */
export async function checkPortkeyRoute(endpoints: BenchEndpoints): Promise<void> {
  const agent = keepAliveAgent();
  try {
    for (const stream of [false, true]) {
      const response = await timedRequest(agent, portkeyChat(endpoints, 'fast', stream), CHECK_TIMEOUT_MS);
      const problem = (stream ? checkChatStream : checkChatJson)(response);
      if (problem) throw new Error(`a ${stream ? 'streamed' : 'JSON'} request through Portkey did not get the mock's answer: ${problem}`);
    }
  } finally {
    agent.destroy();
  }
}

/**
 * Install, start and check, in that order. Any failure leaves gw's measurements untouched: the reason is returned
 * for the report (offline, an npm error, a route that does not answer), not raised.
 */
export async function preparePortkey(
  registry: ChildRegistry,
  root: string,
  endpoints: Omit<BenchEndpoints, 'portkeyUrl'>,
  log: (line: string) => void,
  npmEnv: NodeJS.ProcessEnv = process.env,
): Promise<{ process: PortkeyProcess } | { unavailable: string }> {
  let startedChild: ManagedChild | undefined;
  try {
    const installDir = await installPortkey(root, log, npmEnv);
    const started = await startPortkey(registry, root, installDir, (child) => (startedChild = child));
    await checkPortkeyRoute({ ...endpoints, portkeyUrl: started.url });
    return { process: started };
  } catch (error) {
    const child = startedChild as ManagedChild | undefined;
    if (child) {
      await child.stop(3_000);
      registry.dismissExit(child);
    }
    return { unavailable: (error as Error).message.slice(0, 600) };
  }
}
