import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { HousekeepingReport } from './housekeeping.js';
import type { StoreReply, StoreRequest } from './protocol.js';
import { LocalStartupError } from '../startup-errors.js';

const START_TIMEOUT_MS = 30_000;
const CLOSE_TIMEOUT_MS = 10_000;

export interface ChildStore {
  endpoint: string;
  pid: number;
  request(request: DistributiveOmit<StoreRequest, 'id'>): Promise<HousekeepingReport | undefined>;
  /** The store process's memory (process.memoryUsage() there): what the soak measurements report. */
  memory(): Promise<NodeJS.MemoryUsage>;
  close(): Promise<void>;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/**
 * Forks the store process (../store-process.ts) and waits for its port. From sources (tsx, vitest) the child
 * gets the tsx loader; from a bundle (bench/processes/compile-gw.ts) it runs the `store-process.mjs` bundled
 * beside it with plain node. No other flag of the parent is passed on (a --cpu-prof of gw must not profile it).
 */
export async function forkStoreProcess(dataDir: string): Promise<ChildStore> {
  const entry = storeProcessEntry();
  const child = fork(entry.file, [dataDir], { execArgv: entry.execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'json' });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the store process did not start within ${START_TIMEOUT_MS / 1000} s`));
    }, START_TIMEOUT_MS);
    const onMessage = (message: StoreReply) => {
      if (message.type === 'ready') settle(() => resolve(message.port));
      // The store process says what went wrong (a data directory another gw holds): a start-up problem, one line.
      if (message.type === 'failed') settle(() => reject(new LocalStartupError(message.message)));
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
      const hint = dataDir === ':memory:' ? '' : ` (is another gw using ${dataDir}? stop it first)`;
      settle(() => reject(new LocalStartupError(`could not open the local store: its process exited before it was ready (${signal ?? `code ${code}`})${hint}`)));
    };
    const onError = (error: Error) => settle(() => reject(error));
    const settle = (done: () => void) => {
      clearTimeout(timer);
      child.off('message', onMessage).off('exit', onExit).off('error', onError);
      done();
    };
    child.on('message', onMessage).once('exit', onExit).once('error', onError);
  });
  return connectedStore(child, port);
}

function connectedStore(child: ChildProcess, port: number): ChildStore {
  const pending = new Map<number, { resolve(reply: Extract<StoreReply, { type: 'reply' }>): void; reject(error: Error): void }>();
  let nextId = 1;
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  void exited.then(() => {
    for (const waiter of pending.values()) waiter.reject(new Error('the store process exited'));
    pending.clear();
  });
  child.on('message', (message: StoreReply) => {
    if (message.type !== 'reply') return;
    const waiter = pending.get(message.id);
    pending.delete(message.id);
    if (message.error !== undefined) waiter?.reject(new Error(message.error));
    else waiter?.resolve(message);
    if (pending.size === 0) holdOpen(child, false);
  });
  // An idle store never keeps gw alive by itself (as the in-process dynalite would not once gw closed it);
  // a request waiting for its answer does.
  holdOpen(child, false);
  const ask = (message: DistributiveOmit<StoreRequest, 'id'>): Promise<Extract<StoreReply, { type: 'reply' }>> => {
    if (!child.connected) return Promise.reject(new Error('the store process is gone'));
    const id = nextId++;
    holdOpen(child, true);
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      child.send({ ...message, id } as StoreRequest);
    });
  };
  const request: ChildStore['request'] = async (message) => (await ask(message)).report;
  let closing: Promise<void> | undefined;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    request,
    memory: async () => (await ask({ op: 'memory' })).memory!,
    close: () =>
      (closing ??= (async () => {
        if (child.connected) await request({ op: 'close' }).catch(() => undefined);
        holdOpen(child, true);
        let timer: NodeJS.Timeout | undefined;
        const gone = await Promise.race([exited.then(() => true), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), CLOSE_TIMEOUT_MS)))]);
        clearTimeout(timer);
        if (!gone) {
          child.kill('SIGKILL');
          await exited;
        }
      })()),
  };
}

function holdOpen(child: ChildProcess, hold: boolean): void {
  const channel = child.channel as { ref?(): void; unref?(): void } | undefined;
  if (hold) {
    child.ref();
    channel?.ref?.();
  } else {
    child.unref();
    channel?.unref?.();
  }
}

/** The store process's entry and loader: beside this module from sources, beside the bundle when bundled. */
function storeProcessEntry(): { file: string; execArgv: string[] } {
  const here = import.meta.url;
  if (here.endsWith('.ts')) {
    const tsx = pathToFileURL(createRequire(here).resolve('tsx')).href;
    return { file: fileURLToPath(new URL('../store-process.ts', here)), execArgv: ['--import', tsx] };
  }
  return { file: fileURLToPath(new URL('./store-process.mjs', here)), execArgv: [] };
}
