import { afterAll, vi } from 'vitest';

/**
 * Set-up of the test files that share a worker process (the `shared` project of vitest.config.ts): each file starts
 * as it would in a process of its own, without paying the process's start-up again.
 *
 * What a process of its own gave a file, and how it gets it here:
 * - gw's own modules evaluated afresh (settings are parsed once per module instance; caches, leases, counters and
 *   log sinks live in module scope): after each file every module is dropped from the worker's registry
 *   (`vi.resetModules`), so the next file evaluates gw's code again. Packages (node_modules: the AWS SDK, DuckDB,
 *   dynalite…) are loaded natively and stay loaded: they are what a new process spent its seconds on.
 * - the environment vitest starts a worker with: restored before each file (gw writes its settings into
 *   `process.env`, files set variables before they start gw).
 * - the working directory, and no process listeners of earlier files: the listeners a file added are removed at its
 *   end, and its 'exit' listeners run first (that is when a process of its own would have run them: they remove
 *   throwaway folders and write what is still buffered).
 * - nothing of the file running on: gateways it left open (or whose start outlived a timed-out hook) are closed.
 * vitest itself restores mocks and spies after each file; `vi.mock` would leak, so files that use it stay isolated.
 *
 * The worker's first file would pay for loading gw's start-up path inside its set-up hook (30 s limit) on a busy
 * machine: the worker loads it once here first, outside any hook, and only re-evaluates it per file.
 */
interface WorkerBaseline {
  env: Record<string, string | undefined>;
  cwd: string;
}

type Listener = (...args: unknown[]) => void;

const BASELINE = Symbol.for('gw.test.shared-worker-baseline');
// The process events gw and the tests listen to (vitest's own IPC events, 'message' and 'disconnect', are left alone).
const PROCESS_EVENTS = ['exit', 'beforeExit', 'SIGINT', 'SIGTERM', 'SIGHUP', 'uncaughtException', 'unhandledRejection', 'warning'] as const;

const holder = globalThis as unknown as { [BASELINE]?: WorkerBaseline };
const first = holder[BASELINE] === undefined;
const baseline = (holder[BASELINE] ??= { env: { ...process.env }, cwd: process.cwd() });
if (first) await loadStartUpPath();
restoreEnvironment(baseline);
const listenersBefore = new Map(PROCESS_EVENTS.map((event) => [event, new Set(rawListeners(event))]));

afterAll(async () => {
  // The file's instance of the module (a fresh one, with nothing open, if the file did not start a gateway).
  const { closeLeftOpenGateways } = await import('./gateway.js');
  await closeLeftOpenGateways();
  endFileAsIfItsProcessEnded(listenersBefore);
  restoreEnvironment(baseline);
  vi.resetModules();
}, 120_000);

/** gw's local start-up path (what startLocalServer imports), loaded and then dropped: its code stays fetched. */
async function loadStartUpPath(): Promise<void> {
  await Promise.all([
    import('../../infra/local/server.js'),
    import('../../shared/gateway/app.js'),
    import('../../shared/control-plane/app.js'),
    import('../../shared/observability/engine/select.js'),
  ]);
  vi.resetModules();
}

function rawListeners(event: (typeof PROCESS_EVENTS)[number]): Listener[] {
  return process.rawListeners(event as 'exit') as Listener[];
}

function restoreEnvironment({ env, cwd }: WorkerBaseline): void {
  for (const name of Object.keys(process.env)) if (!(name in env)) delete process.env[name];
  for (const [name, value] of Object.entries(env)) if (process.env[name] !== value) process.env[name] = value;
  if (process.cwd() !== cwd) process.chdir(cwd);
}

function endFileAsIfItsProcessEnded(before: Map<string, Set<Listener>>): void {
  for (const event of PROCESS_EVENTS) {
    const kept = before.get(event) ?? new Set();
    const added = rawListeners(event).filter((listener) => !kept.has(listener));
    for (const listener of added) {
      process.removeListener(event, listener);
      if (event === 'exit') listener(process.exitCode ?? 0);
    }
  }
}
