import { listenDynalite, probeDynalite, type DynaliteServer } from './store/dynalite-server.js';
import type { Housekeeping } from './store/housekeeping.js';
import type { StoreReply, StoreRequest } from './store/protocol.js';

/**
 * The embedded store's own process (forked by store/child-store.ts): dynalite, and the housekeeping that keeps
 * its data bounded (TTL sweep, blob folder), out of the gw process, so neither the store's CPU per request
 * nor the data it holds lands in the gateway's process. argv[2] is the data directory (or `:memory:`); the port
 * goes back over IPC. Its lifetime belongs to the gw process: it closes when told, and exits by itself when the
 * IPC channel drops (the parent died, even by SIGKILL), so it never outlives gw.
 */

async function main(): Promise<void> {
  const send = process.send?.bind(process);
  if (!send) {
    console.error('gw store process: start it through startEmbeddedStore (it needs an IPC channel)');
    process.exit(1);
  }
  const reply = (message: StoreReply) => {
    if (process.connected) send(message);
  };
  const dataDir = process.argv[2] ?? ':memory:';
  let failed = false;
  const fail = (error: unknown): never => {
    // A locked data directory can throw more than once inside dynalite: report the first, say nothing more.
    if (failed) return undefined as never;
    failed = true;
    const reason = (error as Error).message;
    const hint = dataDir === ':memory:' ? '' : ` (is another gw using ${dataDir}? stop it first)`;
    reply({ type: 'failed', message: `could not open the local store: ${reason}${hint}` });
    process.exit(1);
  };
  // Until it answered once, anything dynalite throws (a locked data directory) is a failed start.
  process.on('uncaughtException', fail);
  const store: DynaliteServer = await listenDynalite(dataDir).catch(fail);
  await probeDynalite(store.port).catch(fail);
  process.off('uncaughtException', fail);
  const endpoint = `http://127.0.0.1:${store.port}`;
  let housekeeping: Housekeeping | undefined;

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await housekeeping?.stop();
      await store.close();
    })());

  process.on('message', (message: StoreRequest) => {
    if (message.op === 'memory') {
      // Started with --expose-gc (measurements only), it collects first so the numbers show what is live.
      (globalThis as { gc?: () => void }).gc?.();
      return reply({ type: 'reply', id: message.id, memory: process.memoryUsage() });
    }
    void handle(message).then(
      (report) => reply({ type: 'reply', id: message.id, report }),
      (error: unknown) => reply({ type: 'reply', id: message.id, error: (error as Error).message }),
    );
  });
  async function handle(message: Exclude<StoreRequest, { op: 'memory' }>) {
    switch (message.op) {
      case 'housekeeping':
        await housekeeping?.stop();
        // Loaded only now: the SDK it uses is most of this process's start-up time, and dynalite needs none of it.
        housekeeping = (await import('./store/housekeeping.js')).startHousekeeping(endpoint, message.plan);
        return undefined;
      case 'pass':
        if (!housekeeping) throw new Error('no housekeeping plan was sent');
        return housekeeping.pass();
      case 'stop-housekeeping':
        await housekeeping?.stop();
        housekeeping = undefined;
        return undefined;
      case 'close':
        await close();
        // Exit once the reply is out; the parent waits for the exit.
        setImmediate(() => process.exit(0));
        return undefined;
    }
  }
  // The parent is gone (exited, crashed, SIGKILLed): nothing can use this store any more.
  process.on('disconnect', () => void close().finally(() => process.exit(0)));
  // Ctrl-C reaches the whole process group: the store must outlive gw's drain and flush, so it leaves only when
  // gw closes it (or the channel drops).
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', () => undefined);
  reply({ type: 'ready', port: store.port });
}

void main();
