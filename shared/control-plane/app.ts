import { randomUUID } from 'node:crypto';
import { ApiKeyAuthenticator } from '../auth/authenticate.js';
import { authenticateControlPlaneCaller } from '../auth/caller.js';
import { JwtAuthenticator } from '../auth/jwt.js';
import { isJwtPrincipal, type Principal } from '../auth/principal.js';
import { DependencyUnavailableError, errorResponse, GatewayError, toGatewayError } from '../http/errors.js';
import { dialectErrorResponse, errorDialectOf } from '../http/error-dialect.js';
import { unknownPathError } from '../http/unknown-path.js';
import { isGatewayPath } from '../gateway/edge-routes.js';
import { decodePathSegments } from '../http/request-path.js';
import { Router } from '../http/router.js';
import type { NeutralRequest, NeutralResponse } from '../http/types.js';
import { logger } from '../observability/logger.js';
import { isConsolePath, serveConsole } from '../console/serve-console.js';
import { actorOf, recordAuditEvent } from '../audit/record.js';
import { auditAuthenticationFailure } from '../audit/authentication-failures.js';
import { registerResourceRoutes } from './routes.js';
import { isScimPath, scimErrorResponse } from './scim/protocol.js';

export type ControlPlaneApp = (request: NeutralRequest) => Promise<NeutralResponse>;


/** What a JWT may do: the spec honours only its `read` and `list` scopes, so it never changes anything. */
const JWT_METHODS = new Set(['GET', 'HEAD']);

/**
 * The control-plane core. Authentication (API key, or a Bearer JWT when there is no key) comes before the
 * route's method is judged; every refusal is audited. A path no route has is a 404 before authentication, naming
 * the path gw serves (a wrong base URL is the usual cause; the paths are public in docs/openapi.yaml). On AWS every
 * path API Gateway does not send to the gateway function lands here, so this covers both edges.
 */
export function createControlPlaneApp(authenticator = new ApiKeyAuthenticator(), jwtAuthenticator = new JwtAuthenticator()): ControlPlaneApp {
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
      // The path first: a malformed one is the same 400 with or without a key, for paths that exist or not.
      decodePathSegments(request.path);
      // The web console's static files are public: its pages call this API with the user's own key.
      if (isConsolePath(request.path)) return serveConsole(request.method, request.path);
      if (!isScimPath(request.path) && !router.serves(request.path)) throw unknownPathError(request.method, request.path, (path) => isGatewayPath(path) || router.serves(path));
      let principal: Principal;
      try {
        principal = await authenticateControlPlaneCaller(request, authenticator, jwtAuthenticator);
      } catch (thrown) {
        const error = toGatewayError(thrown);
        if (error.status === 401) await auditAuthenticationFailure(request, error, traceId);
        throw thrown;
      }
      principals.set(request, principal);
      const { handler, params } = router.match(request.method, request.path);
      if (isJwtPrincipal(principal) && !JWT_METHODS.has(request.method.toUpperCase())) await refuseJwtWrite(request, principal, traceId);
      const response = await handler(request, params);
      return { ...response, headers: { ...response.headers, 'x-gw-trace-id': traceId } };
    } catch (thrown) {
      const error = toGatewayError(thrown);
      if (error.code === 'internal_error') logger.error('unhandled error in control plane', { trace_id: traceId, error: thrown as Error });
      if (thrown instanceof DependencyUnavailableError) logger.error('a dependency failed', { trace_id: traceId, code: thrown.code, reason: thrown.message });
      // SCIM clients read only SCIM's error message (RFC 7644 §3.12), authentication failures included.
      if (isScimPath(request.path)) return scimErrorResponse(error, { 'x-gw-trace-id': traceId });
      // A wrong path is answered in the sender's dialect: Anthropic SDKs and Claude Code read only their own shape.
      if (error.code === 'route_not_found') return dialectErrorResponse(error, errorDialectOf(request.headers, request.path), { 'x-gw-trace-id': traceId });
      return errorResponse(error, { 'x-gw-trace-id': traceId });
    }
  };
}

async function refuseJwtWrite(request: NeutralRequest, principal: Principal, traceId: string): Promise<never> {
  await recordAuditEvent({
    action: 'authorization.denied',
    resource_type: 'authentication',
    outcome: 'failure',
    organisation_id: principal.organisationId,
    workspace_id: principal.workspaceId,
    actor: actorOf(principal),
    details: { method: 'jwt', code: 'jwt_read_only', http_method: request.method, path: request.path },
    source_ip: request.sourceIp,
    trace_id: traceId,
  });
  throw new GatewayError(403, 'jwt_read_only', 'A JWT grants only read and list access; use an API key with the right scope to make changes');
}
