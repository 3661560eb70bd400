import { toGatewayError } from '../../http/errors.js';
import type { Router } from '../../http/router.js';
import type { NeutralRequest, NeutralResponse } from '../../http/types.js';
import { jsonResponse } from '../../http/types.js';
import { logger } from '../../observability/logger.js';
import { errorWithoutCredentials } from '../../observability/request-credentials.js';
import { buildGatewayContext, forwardInference, type InferenceDependencies } from '../../gateway/inference.js';
import { gatewayHeaders } from '../../gateway/response-headers.js';
import { anthropicErrorBody } from './errors.js';

/** `POST /v1/messages` and `POST /v1/messages/count_tokens`, answering errors in Anthropic's shape. */
export function registerMessagesRoutes(router: Router, deps: InferenceDependencies): void {
  router.on('POST', '/v1/messages', anthropicShaped(async (request) => {
    const context = await buildGatewayContext(request, 'messages', request.headers['x-gw-trace-id'] ?? '', deps);
    return forwardInference(context, deps.clock);
  }));
  // Token counting (and the tokenizer it may load) is imported on its first request.
  router.on('POST', '/v1/messages/count_tokens', anthropicShaped(async (request) => (await import('./count-tokens-route.js')).countTokensHandler(request, deps)));
}

/**
 * Anthropic clients send the provider key as `x-api-key` (ANTHROPIC_API_KEY): gw takes it as the provider
 * token when there is no `Authorization`, and answers every failure in Anthropic's error shape.
 */
function anthropicShaped(handler: (request: NeutralRequest) => Promise<NeutralResponse>) {
  return async (request: NeutralRequest): Promise<NeutralResponse> => {
    const apiKey = request.headers['x-api-key'];
    if (apiKey && !request.headers.authorization) request.headers.authorization = `Bearer ${apiKey}`;
    try {
      return await handler(request);
    } catch (thrown) {
      const error = errorWithoutCredentials(toGatewayError(thrown), request);
      if (error.status >= 500 && error.code === 'internal_error') logger.error('unhandled error in gateway', { trace_id: request.headers['x-gw-trace-id'], error: thrown as Error });
      const headers = { ...gatewayHeaders({ traceId: request.headers['x-gw-trace-id'] ?? '' }), ...error.headers, 'x-gw-error-code': error.code };
      return jsonResponse(error.status, anthropicErrorBody(error), headers);
    }
  };
}
