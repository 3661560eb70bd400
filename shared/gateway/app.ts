import { ApiKeyAuthenticator } from '../auth/authenticate.js';
import { DependencyUnavailableError, errorResponse, toGatewayError } from '../http/errors.js';
import { dialectErrorResponse, errorDialectOf } from '../http/error-dialect.js';
import { Router } from '../http/router.js';
import type { NeutralRequest, NeutralResponse } from '../http/types.js';
import { logger } from '../observability/logger.js';
import { errorWithoutCredentials } from '../observability/request-credentials.js';
import type { Endpoint } from '../providers/types.js';
import { savedConfigSource } from '../store/config-repository.js';
import { ConfigResolver } from './config/resolve-config.js';
import { buildGatewayContext, forwardInference, type InferenceDependencies } from './inference.js';
import { handlerOnFirstRequest } from '../http/lazy-handler.js';
import { registerDialectRoutes } from '../dialects/routes.js';
import { registerPassthroughRoutes } from './passthrough/routes.js';
import { registerBatchRoutes } from './batches/routes.js';
import { readTraceId } from './request-options.js';
import { gatewayHeaders } from './response-headers.js';
import { assignRequestId, REQUEST_ID_HEADER } from './request-id.js';
import { keepGatewayKeysFromProviders } from './gateway-key-slot.js';
import { randomUUID } from 'node:crypto';
import { merged } from '../merged.js';

export type GatewayApp = (request: NeutralRequest) => Promise<NeutralResponse>;

const INFERENCE_ROUTES: ReadonlyArray<[string, Endpoint]> = [
  ['/v1/chat/completions', 'chat'],
  ['/v1/completions', 'completions'],
  ['/v1/embeddings', 'embeddings'],
];

/** The gateway core: a function from a neutral request to a neutral response. Both edges call this. */
export function createGatewayApp(
  authenticator = new ApiKeyAuthenticator(),
  deps: Partial<Omit<InferenceDependencies, 'authenticator'>> = {},
): GatewayApp {
  const inference: InferenceDependencies = { authenticator, configs: deps.configs ?? new ConfigResolver(savedConfigSource()), clock: deps.clock };
  const router = new Router();
  for (const [path, endpoint] of INFERENCE_ROUTES) {
    router.on('POST', path, async (request) => {
      const traceId = request.headers['x-gw-trace-id'] ?? '';
      const context = await buildGatewayContext(request, endpoint, traceId, inference);
      return forwardInference(context, inference.clock);
    });
  }
  // Inbound dialects: /v1/responses (+ stored responses) and /v1/messages (+ count_tokens).
  registerDialectRoutes(router, inference);
  // Pass-through OpenAI endpoints: images, audio, moderations, rerank (docs/passthrough.md).
  registerPassthroughRoutes(router, inference);
  // Files and batches in OpenAI's shapes (docs/batches.md).
  registerBatchRoutes(router, authenticator);
  // The MCP gateway (docs/mcp.md) and the keyless health check.
  // Both are imported on their first request (shared/http/lazy-handler.ts).
  const mcp = handlerOnFirstRequest(async () => (await import('../mcp/gateway.js')).mcpGatewayHandler(authenticator));
  for (const method of ['POST', 'GET', 'DELETE']) router.on(method, '/v1/mcp/{server}', mcp);
  // Loaded with the first probe: a model call's cold start does not carry it.
  router.on('GET', '/health', handlerOnFirstRequest(async () => (await import('./health.js')).healthHandler(authenticator)));
  // Prompt completions render a stored prompt, then run it through the very chat-completions route above.
  const chatCompletions = router.match('POST', '/v1/chat/completions').handler;
  router.on('POST', '/v1/prompts/{promptId}/completions', handlerOnFirstRequest(async () => (await import('./prompt-completions.js')).promptCompletionsHandler(authenticator, chatCompletions)));

  return async (request) => {
    // Every answer names its log record (request-id.ts), errors included.
    const requestId = assignRequestId(request);
    const answer = await serve(request);
    answer.headers[REQUEST_ID_HEADER] = requestId;
    return answer;
  };

  async function serve(request: NeutralRequest): Promise<NeutralResponse> {
    let traceId: string;
    try {
      traceId = readTraceId(request.headers['x-gw-trace-id']);
    } catch (error) {
      return errorResponse(toGatewayError(error), gatewayHeaders({ traceId: randomUUID() }));
    }
    request.headers['x-gw-trace-id'] = traceId;
    try {
      // The route first: a wrong method costs no store read and is not reported as a credential problem.
      const { handler, params } = router.match(request.method, request.path);
      // The caller's key is read beside the gw-key check's lookup, not after it: the handler's authentication then
      // finds that read in flight or cached, and a cold request keeps two store round trips in sequence, not three.
      const apiKey = request.headers['x-gw-api-key'];
      if (apiKey) authenticator.authenticate(apiKey).catch(() => undefined);
      await keepGatewayKeysFromProviders(request.headers, authenticator);
      return await handler(request, params);
    } catch (thrown) {
      const error = errorWithoutCredentials(toGatewayError(thrown), request);
      if (error.status >= 500 && error.code === 'internal_error') {
        logger.error('unhandled error in gateway', { trace_id: traceId, error: thrown as Error });
      }
      if (thrown instanceof DependencyUnavailableError) logger.error('a dependency failed', { trace_id: traceId, code: thrown.code, reason: thrown.message });
      // A routing error is answered in the sender's dialect: Anthropic SDKs read only their own shape, and a
      // GET /v1/messages (a browser, a health probe) comes from no SDK at all, so the path decides there.
      if (ROUTING_ERRORS.has(error.code)) return dialectErrorResponse(error, errorDialectOf(request.headers, request.path), gatewayHeaders({ traceId }));
      return errorResponse(error, merged(gatewayHeaders({ traceId }), error.headers));
    }
  }
}

const ROUTING_ERRORS: ReadonlySet<string> = new Set(['method_not_allowed', 'route_not_found']);
