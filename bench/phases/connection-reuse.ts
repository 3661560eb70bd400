import { MOCK_TRAILING_END_MS } from '../mock/payloads.js';
import { runSequential } from '../measure/sequential.js';
import { checkChatStream, directChat, gwChat } from '../scenarios/requests.js';
import { MAX_ERRORS_PER_SERIES, REQUEST_TIMEOUT_MS, type PhaseContext } from './context.js';

export interface ConnectionReuse {
  requests: number;
  trailingEndMs: number;
  /** New TCP connections the mock saw for the direct path and for gw (keep-alive: 1 each at most). */
  directConnections: number;
  gwConnections: number;
}

/**
 * Streamed requests whose HTTP body ends a few ms after `[DONE]`, as a provider's may: a client that stops
 * reading at `[DONE]` and destroys the body aborts the request and loses the keep-alive connection, and against
 * a real provider every next request pays a new TCP and TLS handshake. Counts the connections each path opens.
 */
export async function measureConnectionReuse(context: PhaseContext, requests: number): Promise<ConnectionReuse> {
  const opened = async (name: string, request: ReturnType<typeof directChat>) => {
    const before = (await context.mock.stats()).connections;
    const result = await runSequential([{ name, request, check: checkChatStream }], {
      warmup: 0,
      count: requests,
      deadlineMs: 30_000,
      timeoutMs: REQUEST_TIMEOUT_MS,
      maxErrors: MAX_ERRORS_PER_SERIES,
      guard: () => context.registry.assertAlive(),
    });
    const [path] = result.paths;
    if (path.errors > 0) context.errors.push(`connection reuse, ${name}: ${path.errors} failed requests, e.g. ${path.errorSamples.join(' | ')}`);
    return (await context.mock.stats()).connections - before;
  };
  return {
    requests,
    trailingEndMs: MOCK_TRAILING_END_MS,
    directConnections: await opened('direct', directChat(context.endpoints, 'trailingEnd', true)),
    gwConnections: await opened('gw', gwChat(context.endpoints, 'trailingEnd', true)),
  };
}
