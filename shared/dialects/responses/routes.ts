import { hasScope } from '../../auth/principal.js';
import { GatewayError } from '../../http/errors.js';
import type { Router } from '../../http/router.js';
import type { NeutralRequest } from '../../http/types.js';
import { jsonResponse } from '../../http/types.js';
import { buildGatewayContext, forwardInference, type InferenceDependencies } from '../../gateway/inference.js';
import { gatewayHeaders } from '../../gateway/response-headers.js';

/** The stored-response table's code, imported with the first request that reads or deletes one. */
const storedResponses = async () => (await import('./response-repository.js')).responseRepository();

/**
 * `POST /v1/responses` runs the pipeline; `GET`/`DELETE /v1/responses/{id}` and `GET …/input_items` read gw's
 * own store, scoped to the caller's workspace: another workspace's response id is a 404.
 */
export function registerResponsesRoutes(router: Router, deps: InferenceDependencies): void {
  router.on('POST', '/v1/responses', async (request) => {
    const context = await buildGatewayContext(request, 'responses', request.headers['x-gw-trace-id'] ?? '', deps);
    return forwardInference(context, deps.clock);
  });
  router.on('GET', '/v1/responses/{responseId}', async (request, params) => {
    const workspaceId = await callerWorkspace(request, deps);
    const stored = await (await storedResponses()).get(workspaceId, params.responseId);
    if (!stored) throw notFound(params.responseId);
    return jsonResponse(200, stored.response, headers(request));
  });
  router.on('DELETE', '/v1/responses/{responseId}', async (request, params) => {
    const workspaceId = await callerWorkspace(request, deps);
    if (!(await (await storedResponses()).delete(workspaceId, params.responseId))) throw notFound(params.responseId);
    return jsonResponse(200, { id: params.responseId, object: 'response.deleted', deleted: true }, headers(request));
  });
  router.on('GET', '/v1/responses/{responseId}/input_items', async (request, params) => {
    const workspaceId = await callerWorkspace(request, deps);
    const stored = await (await storedResponses()).get(workspaceId, params.responseId);
    if (!stored) throw notFound(params.responseId);
    return jsonResponse(200, inputItemsPage(stored.inputItems, request.query), headers(request));
  });
}

async function callerWorkspace(request: NeutralRequest, deps: InferenceDependencies): Promise<string> {
  const principal = await deps.authenticator.authenticate(request.headers['x-gw-api-key']);
  if (!hasScope(principal, 'completions:write')) throw new GatewayError(403, 'missing_scope', 'This API key lacks the completions:write scope');
  return principal.workspaceId;
}

const headers = (request: NeutralRequest) => gatewayHeaders({ traceId: request.headers['x-gw-trace-id'] ?? '' });

function notFound(id: string): GatewayError {
  return new GatewayError(404, 'response_not_found', `No response with id '${id}' found.`, { param: 'response_id' });
}

/** OpenAI's list page: `order` (default desc), `limit` (1–100, default 20), `after` an item id. */
function inputItemsPage(items: Array<Record<string, unknown>>, query: Record<string, string>): Record<string, unknown> {
  const limit = query.limit === undefined ? 20 : Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new GatewayError(400, 'invalid_parameter', '`limit` must be an integer from 1 to 100', { param: 'limit' });
  if (query.order !== undefined && query.order !== 'asc' && query.order !== 'desc') throw new GatewayError(400, 'invalid_parameter', '`order` must be asc or desc', { param: 'order' });
  const ordered = query.order === 'asc' ? items : [...items].reverse();
  const start = query.after === undefined ? 0 : ordered.findIndex((item) => item.id === query.after) + 1;
  const data = ordered.slice(start, start + limit);
  return { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: start + limit < ordered.length };
}
