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
  const server = await startLocalServer({ port: 0, dataDir: ':memory:', bootstrapApiKey: TEST_ADMIN_KEY, env: { POWERTOOLS_LOG_LEVEL: 'SILENT', ...env } });
  return {
    ...server,
    apiKey: TEST_ADMIN_KEY,
    post: (path, body, headers = {}) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-gw-api-key': TEST_ADMIN_KEY, ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
  };
}
