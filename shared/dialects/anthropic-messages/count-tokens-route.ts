import { hasScope } from '../../auth/principal.js';
import { GatewayError } from '../../http/errors.js';
import type { NeutralRequest, NeutralResponse } from '../../http/types.js';
import { jsonResponse } from '../../http/types.js';
import { settings } from '../../settings.js';
import type { RouteNode } from '../../gateway/config/target-tree.js';
import { buildRouteTree } from '../../gateway/config/target-tree.js';
import type { InferenceDependencies } from '../../gateway/inference.js';
import { parseInferenceBody } from '../../gateway/request-body.js';
import { readRequestOptions } from '../../gateway/request-options.js';
import { gatewayHeaders } from '../../gateway/response-headers.js';
import { leafFromHeaders, resolveLeafTarget } from '../../gateway/resolve-target.js';
import { resolveRequestConfig } from '../../gateway/deployment-target.js';
import { admitWorkspaceProvider, applyWorkspaceProvider } from '../../gateway/provider-target.js';
import { checkAllowedModels } from '../../gateway/allowed-models.js';
import { readUpstreamBody, sendUpstream } from '../../gateway/upstream-client.js';
import { parseJsonOrText } from '../../gateway/upstream-errors.js';
import { countMessagesTokensLocally, validateCountTokensBody } from './count-tokens.js';
import { buildNativeMessagesCall } from './native.js';

/**
 * Token counting: natively (Anthropic's own count_tokens) when the request's first target is Anthropic,
 * otherwise counted locally with gpt-tokenizer. Nothing is charged or logged as a completion.
 */
export async function countTokensHandler(request: NeutralRequest, deps: InferenceDependencies): Promise<NeutralResponse> {
  const traceId = request.headers['x-gw-trace-id'] ?? '';
  const principal = await deps.authenticator.authenticate(request.headers['x-gw-api-key']);
  if (!hasScope(principal, 'completions:write')) throw new GatewayError(403, 'missing_scope', 'This API key lacks the completions:write scope');
  const options = readRequestOptions(request.headers);
  const body = parseInferenceBody(request.body, settings().GW_MAX_BODY_BYTES);
  // The same credential sources as every other entry point: a workspace provider, a deployment or a config.
  await applyWorkspaceProvider(request, options, principal);
  const resolved = await resolveRequestConfig(options, principal, deps.configs);
  const tree = buildRouteTree(resolved?.config, leafFromHeaders(options), resolved?.source);
  checkAllowedModels(tree, body);
  await admitWorkspaceProvider(request);
  const leaf = firstLeaf(tree);
  const counted = { ...body, ...leaf.overrideParams };
  validateCountTokensBody(counted);
  const { adapter, target, forwardHeaders } = await resolveLeafTarget(leaf, options, 'chat', request, principal.workspaceId);
  const headers = gatewayHeaders({ traceId, provider: adapter.slug });
  if (adapter.slug !== 'anthropic') {
    return jsonResponse(200, { input_tokens: await countMessagesTokensLocally(counted) }, { ...headers, 'x-gw-token-count-source': 'gpt-tokenizer/o200k_base' });
  }
  const call = buildNativeMessagesCall({ provider: adapter.slug, body: counted, stream: false, target, forwardHeaders, requestHeaders: request.headers }, '/messages/count_tokens');
  const upstream = await sendUpstream(call, { timeoutMs: options.requestTimeoutMs ?? settings().GW_DEFAULT_REQUEST_TIMEOUT_MS, idleTimeoutMs: settings().GW_STREAM_IDLE_TIMEOUT_MS, signal: request.signal });
  const answer = parseJsonOrText((await readUpstreamBody(upstream.body, 1024 * 1024)).toString('utf8'));
  if (upstream.status < 200 || upstream.status >= 300) {
    const summary = adapter.toOpenAIError(upstream.status, answer);
    throw new GatewayError(upstream.status, summary.code ?? 'provider_error', summary.message, { type: 'upstream_error', providerError: answer, upstream: true });
  }
  return jsonResponse(200, answer, { ...headers, 'x-gw-token-count-source': 'anthropic' });
}

function firstLeaf(node: RouteNode): Extract<RouteNode, { kind: 'leaf' }>['settings'] {
  return node.kind === 'leaf' ? node.settings : firstLeaf(node.children[0]);
}
