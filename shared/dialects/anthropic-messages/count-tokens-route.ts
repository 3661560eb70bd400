import { randomUUID } from 'node:crypto';
import { hasScope, type Principal } from '../../auth/principal.js';
import { GatewayError, toGatewayError } from '../../http/errors.js';
import type { NeutralRequest, NeutralResponse } from '../../http/types.js';
import { jsonResponse } from '../../http/types.js';
import { runInBackground } from '../../observability/background.js';
import { rejectedRequestOf } from '../../gateway/finished-request.js';
import { requestLogger } from '../../observability/logger.js';
import type { Endpoint } from '../../providers/types.js';
import { settings } from '../../settings.js';
import type { RouteNode } from '../../gateway/config/target-tree.js';
import { buildRouteTree } from '../../gateway/config/target-tree.js';
import type { GatewayContext } from '../../gateway/context.js';
import { admitRequest, type Admission } from '../../gateway/enforcement/admission.js';
import { releaseAdmission } from '../../gateway/enforcement/settlement.js';
import { recordOutcome, recordRejectedRequest, type InferenceDependencies } from '../../gateway/inference.js';
import { applyWorkspaceProvider } from '../../gateway/provider-target.js';
import { parseInferenceBody } from '../../gateway/request-body.js';
import { readRequestOptions } from '../../gateway/request-options.js';
import { checkEntryRequestType } from '../../gateway/request-type-gate.js';
import { gatewayHeaders } from '../../gateway/response-headers.js';
import { leafFromHeaders, resolveLeafTarget } from '../../gateway/resolve-target.js';
import { resolveRequestConfig } from '../../gateway/deployment-target.js';
import { checkAllowedModels } from '../../gateway/allowed-models.js';
import { readUpstreamBody, sendUpstream } from '../../gateway/upstream-client.js';
import { parseJsonOrText } from '../../gateway/upstream-errors.js';
import { countMessagesTokensLocally, validateCountTokensBody } from './count-tokens.js';
import { buildNativeMessagesCall } from './native.js';

/** The request type and log endpoint of token counting (`allowed_request_types`, request logs). */
const ENDPOINT = 'messages/count_tokens';

/**
 * Token counting: natively (Anthropic's own count_tokens) when the request's first target is Anthropic,
 * otherwise counted locally with gpt-tokenizer. Like every entry point it obeys `allowed_request_types`, takes a
 * slot of each matching `requests` policy (and of its workspace provider's request limit) and gets a request
 * log record. It uses no tokens: tokens rules, usage limits and budgets neither refuse nor charge it.
 */
export async function countTokensHandler(request: NeutralRequest, deps: InferenceDependencies): Promise<NeutralResponse> {
  const traceId = request.headers['x-gw-trace-id'] ?? '';
  const startedAt = performance.now();
  const principal = await deps.authenticator.authenticate(request.headers['x-gw-api-key']);
  let context: GatewayContext | undefined;
  let admission: Admission | undefined;
  try {
    if (!hasScope(principal, 'completions:write')) throw new GatewayError(403, 'missing_scope', 'This API key lacks the completions:write scope');
    const options = readRequestOptions(request.headers);
    const body = parseInferenceBody(request.body, settings().GW_MAX_BODY_BYTES);
    // The same credential sources as every other entry point: a workspace provider, a deployment or a config.
    const workspaceProvider = await applyWorkspaceProvider(options, principal);
    const resolved = await resolveRequestConfig(options, principal, deps.configs, deps.authenticator, request.headers);
    const routeTree = buildRouteTree(resolved?.config, leafFromHeaders(options), resolved?.source);
    checkAllowedModels(routeTree, body);
    const leaf = firstLeaf(routeTree);
    const counted = { ...body, ...leaf.overrideParams };
    validateCountTokensBody(counted);
    context = countingContext(request, traceId, startedAt, principal, { options, body: counted, routeTree, workspaceProvider, configured: resolved !== undefined });
    await checkEntryRequestType(principal.workspaceId, ENDPOINT, leaf.inputGuardrails);
    admission = await admitRequest(context, undefined, 'requests');
    const response = await countTokens(request, context, leaf, counted);
    recordOutcome(context, { status: 200, responseBody: typeof response.body === 'string' ? response.body : undefined }, admission);
    return response;
  } catch (thrown) {
    const error = toGatewayError(thrown);
    const held = admission;
    // As on every path: gw's own refusals give the slots back; a provider's failure still counted.
    if (held) runInBackground('policy release', () => releaseAdmission(held, error.upstream, requestLogger(traceId)));
    if (context) recordOutcome(context, { status: error.status, errorCode: error.code, errorType: error.type, errorMessage: error.message });
    else recordRejectedRequest(rejectedRequestOf({ request, endpoint: ENDPOINT as unknown as Endpoint, traceId, startedAt, principal }, error));
    throw thrown;
  }
}

async function countTokens(request: NeutralRequest, context: GatewayContext, leaf: LeafSettings, counted: Record<string, unknown>): Promise<NeutralResponse> {
  const { options, traceId } = context;
  const { adapter, target, forwardHeaders } = await resolveLeafTarget(leaf, options, 'chat', request, context.principal.workspaceId);
  const headers = gatewayHeaders({ traceId, provider: adapter.slug });
  if (adapter.slug !== 'anthropic') {
    return jsonResponse(200, { input_tokens: await countMessagesTokensLocally(counted) }, { ...headers, 'x-gw-token-count-source': 'gpt-tokenizer/o200k_base' });
  }
  const call = buildNativeMessagesCall({ provider: adapter.slug, body: counted, stream: false, target, forwardHeaders, requestHeaders: request.headers }, '/messages/count_tokens');
  const started = performance.now();
  const upstream = await sendUpstream(call, { timeoutMs: options.requestTimeoutMs ?? settings().GW_DEFAULT_REQUEST_TIMEOUT_MS, idleTimeoutMs: settings().GW_STREAM_IDLE_TIMEOUT_MS, signal: request.signal });
  const answer = parseJsonOrText((await readUpstreamBody(upstream.body, 1024 * 1024)).toString('utf8'));
  const model = typeof counted.model === 'string' ? counted.model : undefined;
  context.attempts.push({ target_path: 'headers', provider: adapter.slug, model, status: upstream.status, latency_ms: Math.round((performance.now() - started) * 100) / 100, retry: 0 });
  if (upstream.status < 200 || upstream.status >= 300) {
    const summary = adapter.toOpenAIError(upstream.status, answer);
    throw new GatewayError(upstream.status, summary.code ?? 'provider_error', summary.message, { type: 'upstream_error', providerError: answer, upstream: true });
  }
  return jsonResponse(200, answer, { ...headers, 'x-gw-token-count-source': 'anthropic' });
}

type LeafSettings = Extract<RouteNode, { kind: 'leaf' }>['settings'];

function firstLeaf(node: RouteNode): LeafSettings {
  return node.kind === 'leaf' ? node.settings : firstLeaf(node.children[0]);
}

/** The pipeline context of a count: what policies match on and the request log records. */
function countingContext(
  request: NeutralRequest,
  traceId: string,
  startedAt: number,
  principal: Principal,
  parts: Pick<GatewayContext, 'options' | 'body' | 'routeTree' | 'workspaceProvider' | 'configured'>,
): GatewayContext {
  return {
    request,
    requestId: randomUUID(),
    traceId,
    startedAt,
    deadline: Date.now() + (parts.options.requestTimeoutMs ?? settings().GW_UPSTREAM_MAX_DURATION_MS),
    endpoint: ENDPOINT as unknown as Endpoint,
    principal,
    ...parts,
    attempts: [],
    log: requestLogger(traceId, principal.workspaceId),
  };
}
