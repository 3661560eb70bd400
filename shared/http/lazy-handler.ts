import { loadOnce } from '../cache/load-once.js';
import type { Handler } from './types.js';

/**
 * A route whose handler module is imported on the route's first request, not with the gateway: a cold start
 * that serves chat completions never loads the MCP gateway, prompt rendering, the pass-through endpoints or the
 * inbound dialects (issue #23). Later requests reuse the same handler; a failed import is tried again on the
 * next request instead of failing the route for the life of the process.
 */
export function handlerOnFirstRequest(load: () => Promise<Handler>): Handler {
  const handler = loadOnce(load);
  return async (request, params) => (await handler())(request, params);
}
