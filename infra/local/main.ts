import { InvalidSettingsError } from '../../shared/settings.js';
import { startLocalServer } from './server.js';

/** `npm start`: the local gw on 127.0.0.1:8787 (PORT, HOST, GW_DATA_DIR, GW_BOOTSTRAP_API_KEY override). */
async function main(): Promise<void> {
  const port = process.env.PORT ? Number(process.env.PORT) : 8787;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidSettingsError([`PORT: must be an integer 0-65535 (got ${JSON.stringify(process.env.PORT)})`]);
  const server = await startLocalServer({
    port,
    host: process.env.HOST ?? '127.0.0.1',
    dataDir: process.env.GW_DATA_DIR ?? '.data',
    bootstrapApiKey: process.env.GW_BOOTSTRAP_API_KEY || undefined,
  });
  const shownKey = server.bootstrap.createdApiKey;
  console.log(`gw is listening on ${server.url}`);
  console.log(`  workspace: ${server.bootstrap.workspaceId}`);
  if (shownKey && !process.env.GW_BOOTSTRAP_API_KEY) {
    console.log(`  admin API key (shown once, store it now): ${shownKey}`);
  }
  const key = process.env.GW_BOOTSTRAP_API_KEY || shownKey || '<your gw API key>';
  console.log('\nTry it (with an OpenAI key in OPENAI_API_KEY):\n');
  console.log(
    `curl ${server.url}/v1/chat/completions \\\n` +
      `  -H 'content-type: application/json' \\\n` +
      `  -H 'x-gw-api-key: ${key}' \\\n` +
      `  -H 'x-gw-provider: openai' \\\n` +
      `  -H "authorization: Bearer $OPENAI_API_KEY" \\\n` +
      `  -d '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Say hello"}]}'\n`,
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: shutting down`);
    await server.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error: unknown) => {
  console.error(error instanceof InvalidSettingsError ? error.message : error);
  process.exit(1);
});
