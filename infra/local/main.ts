// First: signals are kept from this moment (early-signals.ts); then, before anything loads the AWS SDK, its notice off.
import { handleSignals } from './early-signals.js';
import './quiet-sdk-notice.js';
import { InvalidSettingsError } from '../../shared/settings.js';
import { ensureConsoleBuilt } from './console-assets.js';
import { DEFAULT_READY_WAIT_MS, startLocalServer, StartupStopped, type LocalServer } from './server.js';
import { shutdownSignalHandler } from './shutdown-signals.js';
import { startupErrorLine } from './startup-errors.js';

/** `npm start`: the local gw on 127.0.0.1:8787 (PORT, HOST, GW_DATA_DIR, GW_BOOTSTRAP_API_KEY override). */
async function main(): Promise<void> {
  // SIGTERM and SIGINT (Ctrl-C) are handled from the first moment. During start-up they stop it (what was started
  // is closed; a first start that already created its admin key still prints it, then closes); after it, they shut
  // down gracefully: stop accepting, let requests in flight finish, flush logs and charges, close the store, exit 0.
  // The group's signal arrives more than once (directly and relayed by npm): copies within a moment are one signal;
  // a signal after that exits at once (shutdown-signals.ts).
  const starting = new AbortController();
  const running: { server?: LocalServer } = {};
  let stopping: NodeJS.Signals | undefined;
  const onSignal = shutdownSignalHandler({
    stop: (signal) => {
      stopping = signal;
      if (running.server) void stop(running.server, signal);
      else {
        console.log(`\n${signal}: stopping during start-up (${signal === 'SIGINT' ? 'Ctrl-C' : signal} again to exit at once)`);
        starting.abort();
      }
    },
    exitNow: (signal) => {
      console.log(`${signal} again: exiting now`);
      process.exit(130);
    },
  });
  handleSignals(onSignal);

  const port = process.env.PORT ? Number(process.env.PORT) : 8787;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidSettingsError([`PORT: must be an integer 0-65535 (got ${JSON.stringify(process.env.PORT)})`]);
  const readyWaitMs = process.env.GW_LOCAL_READY_WAIT_MS ? Number(process.env.GW_LOCAL_READY_WAIT_MS) : DEFAULT_READY_WAIT_MS;
  if (!Number.isInteger(readyWaitMs) || readyWaitMs < 0) throw new InvalidSettingsError([`GW_LOCAL_READY_WAIT_MS: must be a whole number of milliseconds (got ${JSON.stringify(process.env.GW_LOCAL_READY_WAIT_MS)})`]);
  // A fresh clone has no console build yet: build it (about a second) so /console works on the first start.
  await ensureConsoleBuilt();
  if (starting.signal.aborted) throw new StartupStopped();
  const server = await startLocalServer({
    port,
    host: process.env.HOST ?? '127.0.0.1',
    dataDir: process.env.GW_DATA_DIR ?? '.data',
    bootstrapApiKey: process.env.GW_BOOTSTRAP_API_KEY || undefined,
    readyWaitMs,
    signal: starting.signal,
  });
  running.server = server;
  printWelcome(server);
  // A signal that came while the bootstrap ran: the key is printed above, now shut down.
  if (stopping) await stop(server, stopping);
}

function printWelcome(server: LocalServer): void {
  const shownKey = server.bootstrap.createdApiKey;
  console.log(`gw is listening on ${server.url}`);
  console.log(`  workspace: ${server.bootstrap.workspaceId}`);
  console.log(`  console:   ${server.url}/console/ (sign in with the admin API key)`);
  if (shownKey && !process.env.GW_BOOTSTRAP_API_KEY) {
    console.log(`  admin API key (shown once, store it now): ${shownKey}`);
    console.log('\nSet it for the examples below and in README:\n');
    console.log(`export GW_API_KEY=${shownKey}`);
  } else if (!process.env.GW_BOOTSTRAP_API_KEY) {
    console.log('  admin API key: created on first start and not shown again. Lost it? `npm run cli -- keys create-admin` makes a new one');
  }
  console.log('\nTry it (with an OpenAI key in OPENAI_API_KEY):\n');
  console.log(
    `curl ${server.url}/v1/chat/completions \\\n` +
      `  -H 'content-type: application/json' \\\n` +
      `  -H "x-gw-api-key: $GW_API_KEY" \\\n` +
      `  -H 'x-gw-provider: openai' \\\n` +
      `  -H "authorization: Bearer $OPENAI_API_KEY" \\\n` +
      `  -d '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Say hello"}]}'\n`,
  );
}

let stopped = false;
async function stop(server: LocalServer, signal: NodeJS.Signals): Promise<void> {
  if (stopped) return;
  stopped = true;
  console.log(`\n${signal}: shutting down (finishing requests in flight, flushing logs and charges; ${signal === 'SIGINT' ? 'Ctrl-C' : signal} again to exit at once)`);
  const report = await server.close();
  if (report.cutRequests > 0 || report.pendingBackground > 0) {
    console.log(`gw stopped: ${report.cutRequests} request(s) cut at the drain timeout (each logged as cut_at_shutdown), ${report.pendingBackground} background task(s) not flushed`);
  } else {
    console.log('gw stopped cleanly');
  }
  process.exit(0);
}

main().catch((error: unknown) => {
  if (error instanceof StartupStopped) {
    console.log('gw stopped during start-up; nothing was lost');
    process.exit(0);
  }
  // Problems the user fixes are one line without a stack (startup-errors.ts); anything else is a crash, in full.
  console.error(startupErrorLine(error) ?? error);
  process.exit(1);
});
