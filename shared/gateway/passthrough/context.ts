import { hasScope, type Principal } from '../../auth/principal.js';
import { GatewayError } from '../../http/errors.js';
import type { NeutralRequest } from '../../http/types.js';
import { noteGatewayAuthenticationFailure } from '../../audit/gateway-authentication-failures.js';
import { rejectedRequestOf } from '../finished-request.js';
import { requestLogger } from '../../observability/logger.js';
import { newSpanId, startSpan, type SpanHost } from '../../observability/spans.js';
import type { Endpoint } from '../../providers/types.js';
import { settings } from '../../settings.js';
import { buildRouteTree } from '../config/target-tree.js';
import type { GatewayContext } from '../context.js';
import { resolveRequestConfig } from '../deployment-target.js';
import { recordRejectedRequest, type InferenceDependencies } from '../inference.js';
import { checkAllowedModels } from '../allowed-models.js';
import { applyWorkspaceProvider } from '../provider-target.js';
import { readRequestOptions } from '../request-options.js';
import { leafFromHeaders } from '../resolve-target.js';
import type { PassthroughRoute } from './endpoints.js';
import { readPassthroughPayload, type PassthroughPayload } from './payload.js';
import { prefetchWorkspaceState } from '../workspace-prefetch.js';
import { requestIdOf } from '../request-id.js';

export interface PassthroughRequest {
  context: GatewayContext;
  route: PassthroughRoute;
  payload: PassthroughPayload;
}

/**
 * The same front half as chat (authenticate, completions:write, x-gw-* options, workspace provider, config →
 * route tree), with the body read as the endpoint takes it. A request refused after authentication still gets
 * its log record.
 */
export async function buildPassthroughRequest(request: NeutralRequest, route: PassthroughRoute, traceId: string, deps: InferenceDependencies): Promise<PassthroughRequest> {
  const startedAt = performance.now();
  const spans: SpanHost = { spans: [], rootSpanId: newSpanId() };
  // The log record's `endpoint` names the pass-through endpoint; no chat-only stage runs on these requests.
  const endpoint = route.endpoint as unknown as Endpoint;
  let principal: Principal | undefined;
  try {
    const authSpan = startSpan(spans, 'auth');
    principal = await deps.authenticator.authenticate(request.headers['x-gw-api-key']).catch((thrown: unknown) => {
      authSpan.end(undefined, thrown);
      noteGatewayAuthenticationFailure(request, thrown, traceId);
      throw thrown;
    });
    authSpan.end({ 'gw.workspace_id': principal.workspaceId });
    if (!hasScope(principal, 'completions:write')) {
      throw new GatewayError(403, 'missing_scope', 'This API key lacks the completions:write scope');
    }
    prefetchWorkspaceState(principal.workspaceId);
    const options = readRequestOptions(request.headers);
    const payload = await readPassthroughPayload(route, request.body, request.headers['content-type'], settings().GW_MAX_BODY_BYTES);
    const workspaceProvider = await applyWorkspaceProvider(options, principal);
    const resolved = await resolveRequestConfig(options, principal, deps.configs, deps.authenticator, request.headers);
    const routeTree = buildRouteTree(resolved?.config, leafFromHeaders(options), resolved?.source);
    checkAllowedModels(routeTree, payload.fields);
    const context: GatewayContext = {
      request,
      requestId: requestIdOf(request),
      traceId,
      startedAt,
      deadline: Date.now() + (options.requestTimeoutMs ?? settings().GW_UPSTREAM_MAX_DURATION_MS),
      endpoint,
      principal,
      options,
      body: payload.fields,
      routeTree,
      workspaceProvider,
      configured: resolved !== undefined,
      attempts: [],
      log: requestLogger(traceId),
      ...spans,
    };
    return { context, route, payload };
  } catch (thrown) {
    const known = principal;
    if (known && thrown instanceof GatewayError) {
      recordRejectedRequest(rejectedRequestOf({ request, endpoint, traceId, startedAt, principal: known, ...spans }, thrown));
    }
    throw thrown;
  }
}
