import { startLocalServer, type LocalServer } from '../../infra/local/server.js';

export const TEST_ADMIN_KEY = 'gwk_test_admin_key_0123456789abcdef';

export interface TestGateway extends LocalServer {
  apiKey: string;
  /** POST JSON to the gateway with the admin key and the given headers. */
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
}

/**
 * Starts the real local runtime (same handlers as Lambda) on a free port with an in-memory store.
 * Settings are read once per process, so `env` applies to the whole test file.
 */
export async function startTestGateway(env: Record<string, string> = {}): Promise<TestGateway> {
  const starting = startLocalServer({ port: 0, dataDir: ':memory:', bootstrapApiKey: TEST_ADMIN_KEY, env: { POWERTOOLS_LOG_LEVEL: 'SILENT', ...env } });
  const entry: Open = { starting, server: undefined };
  open.add(entry);
  let server: LocalServer;
  try {
    server = await starting;
  } catch (error) {
    open.delete(entry);
    throw error;
  }
  const close = async () => {
    open.delete(entry);
    return server.close();
  };
  entry.server = { ...server, close };
  return {
    ...server,
    close,
    apiKey: TEST_ADMIN_KEY,
    post: (path, body, headers = {}) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-gw-api-key': TEST_ADMIN_KEY, ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
  };
}

interface Open {
  starting: Promise<LocalServer>;
  server: LocalServer | undefined;
}

/** The gateways of this module instance (one test file's) not closed yet, those still starting included. */
const open = new Set<Open>();

/**
 * Closes what a test file left open, as the end of its process would have: a gateway it did not close, or one whose
 * start outlived the file (a set-up hook that timed out while gw was still starting). test/support/shared-worker-setup.ts
 * calls it after each file of a shared worker, so nothing of one file runs on into the next.
 */
export async function closeLeftOpenGateways(): Promise<void> {
  const left = [...open];
  open.clear();
  await Promise.all(
    left.map(async (entry) => {
      const server = entry.server ?? (await entry.starting.catch(() => undefined));
      await server?.close().catch(() => undefined);
    }),
  );
}
