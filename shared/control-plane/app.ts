import { randomUUID } from 'node:crypto';
import { ApiKeyAuthenticator } from '../auth/authenticate.js';
import type { Principal } from '../auth/principal.js';
import { errorResponse, toGatewayError } from '../http/errors.js';
import { Router } from '../http/router.js';
import type { NeutralRequest, NeutralResponse } from '../http/types.js';
import { logger } from '../observability/logger.js';
import { registerResourceRoutes } from './routes.js';

export type ControlPlaneApp = (request: NeutralRequest) => Promise<NeutralResponse>;

/** Everything a resource handler gets: the authenticated caller plus the request. */
export interface ControlPlaneRequest {
  request: NeutralRequest;
  params: Record<string, string>;
  principal: Principal;
  traceId: string;
}

export type ResourceHandler = (call: ControlPlaneRequest) => Promise<NeutralResponse>;

/**
 * The control-plane core. Authentication comes before routing, so an unauthenticated caller learns nothing
 * about which paths exist.
 */
export function createControlPlaneApp(authenticator = new ApiKeyAuthenticator()): ControlPlaneApp {
  const router = new Router();
  const principals = new WeakMap<NeutralRequest, Principal>();
  registerResourceRoutes((method, pattern, handler) =>
    router.on(method, pattern, async (request, params) =>
      handler({ request, params, principal: principals.get(request)!, traceId: request.headers['x-gw-trace-id'] }),
    ),
  );

  return async (request) => {
    const traceId = request.headers['x-gw-trace-id'] || randomUUID();
    request.headers['x-gw-trace-id'] = traceId;
    try {
      principals.set(request, await authenticator.authenticate(request.headers['x-gw-api-key']));
      const { handler, params } = router.match(request.method, request.path);
      const response = await handler(request, params);
      return { ...response, headers: { ...response.headers, 'x-gw-trace-id': traceId } };
    } catch (thrown) {
      const error = toGatewayError(thrown);
      if (error.code === 'internal_error') logger.error('unhandled error in control plane', { trace_id: traceId, error: thrown as Error });
      return errorResponse(error, { 'x-gw-trace-id': traceId });
    }
  };
}
