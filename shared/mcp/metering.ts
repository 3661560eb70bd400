import type { Principal } from '../auth/principal.js';
import type { NeutralRequest } from '../http/types.js';
import { requestLogger } from '../observability/logger.js';
import type { Endpoint } from '../providers/types.js';
import { settings } from '../settings.js';
import type { GatewayContext } from '../gateway/context.js';
import { admitRequest, type Admission } from '../gateway/enforcement/admission.js';
import { releaseAdmission } from '../gateway/enforcement/settlement.js';
import { checkEntryRequestType } from '../gateway/request-type-gate.js';
import { readRequestOptions } from '../gateway/request-options.js';
import { leafFromHeaders } from '../gateway/resolve-target.js';
import { requestIdOf } from '../gateway/request-id.js';

/**
 * The MCP gateway obeys the rules of every entry point (docs/security.md): the guardrail
 * `allowed_request_types` (request type `mcp`), then the workspace's `requests` policies: every HTTP request to
 * `/v1/mcp/{server}` takes one slot of each matching policy, with the same atomic conditional increment as a
 * chat completion. It uses no tokens, so tokens rules, usage limits and budgets neither refuse nor charge it.
 * Policies see its API key, workspace and `x-gw-metadata`; it has no provider, model or virtual key.
 */
export async function admitMcpRequest(request: NeutralRequest, principal: Principal, traceId: string): Promise<Admission | undefined> {
  await checkEntryRequestType(principal.workspaceId, 'mcp');
  // Only the metadata header: the MCP conversation's other headers (Authorization carries gw's key) are no options.
  const metadata = request.headers['x-gw-metadata'];
  const options = readRequestOptions(metadata === undefined ? {} : { 'x-gw-metadata': metadata });
  const context: GatewayContext = {
    request,
    requestId: requestIdOf(request),
    traceId,
    startedAt: performance.now(),
    deadline: Date.now() + settings().GW_UPSTREAM_MAX_DURATION_MS,
    endpoint: 'mcp' as unknown as Endpoint,
    principal,
    options,
    body: {},
    // No provider to route to: one unchecked leaf, so policies find no provider, model or virtual key.
    routeTree: { kind: 'leaf', path: 'headers', weight: 1, settings: leafFromHeaders(options) },
    configured: false,
    attempts: [],
    log: requestLogger(traceId, principal.workspaceId),
  };
  return admitRequest(context, undefined, 'requests');
}

/** A request the MCP server never received gives its slots back (as a chat request gw refused itself does). */
export async function releaseMcpAdmission(admission: Admission | undefined, reachedServer: boolean, traceId: string): Promise<void> {
  await releaseAdmission(admission, reachedServer, requestLogger(traceId));
}
