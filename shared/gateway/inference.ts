import { randomUUID } from 'node:crypto';
import type { ApiKeyAuthenticator } from '../auth/authenticate.js';
import { hasScope } from '../auth/principal.js';
import { GatewayError } from '../http/errors.js';
import type { NeutralRequest, NeutralResponse } from '../http/types.js';
import { runInBackground } from '../observability/background.js';
import { requestLogger } from '../observability/logger.js';
import { writeRequestLog } from '../observability/request-log.js';
import type { AdapterInput, Endpoint } from '../providers/types.js';
import { settings } from '../settings.js';
import type { GatewayContext } from './context.js';
import { applyMetadataUser, parseInferenceBody, validateInferenceBody } from './request-body.js';
import { readRequestOptions } from './request-options.js';
import { resolveHeaderTarget } from './resolve-target.js';
import { gatewayHeaders } from './response-headers.js';
import { openStreamRelay } from './stream-relay.js';
import { providerErrorFrom } from './upstream-errors.js';
import { readUpstreamBody, sendUpstream } from './upstream-client.js';

const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

export interface InferenceOutcome {
  status: number;
  provider?: string;
  model?: string;
  usage?: Record<string, unknown>;
  /** A pass-through body, read for usage only after the response went out. */
  usageSource?: Buffer;
  errorCode?: string;
}

/** Authenticates, reads the options and the body, and builds the pipeline context. */
export async function buildGatewayContext(
  request: NeutralRequest,
  endpoint: Endpoint,
  traceId: string,
  authenticator: ApiKeyAuthenticator,
): Promise<GatewayContext> {
  const principal = await authenticator.authenticate(request.headers['x-gw-api-key']);
  if (!hasScope(principal, 'completions:write')) {
    throw new GatewayError(403, 'missing_scope', 'This API key lacks the completions:write scope');
  }
  const options = readRequestOptions(request.headers);
  const body = parseInferenceBody(request.body, settings().GW_MAX_BODY_BYTES);
  validateInferenceBody(endpoint, body);
  return {
    request,
    requestId: randomUUID(),
    traceId,
    startedAt: performance.now(),
    endpoint,
    principal,
    options,
    body,
    log: requestLogger(traceId),
  };
}

/** Forwards one inference call to the resolved provider and shapes the answer as OpenAI's. */
export async function forwardInference(context: GatewayContext): Promise<NeutralResponse> {
  const { options, endpoint } = context;
  const { adapter, target } = resolveHeaderTarget(options, endpoint);
  const stream = context.body.stream === true;
  const input: AdapterInput = {
    endpoint,
    body: applyMetadataUser(context.body, options.metadata),
    stream,
    target,
    forwardHeaders: options.forwardHeaders,
    dropUnsupportedParams: options.dropUnsupportedParams,
  };
  const outcome: InferenceOutcome = { status: 0, provider: adapter.slug, model: typeof context.body.model === 'string' ? context.body.model : undefined };
  const headers = gatewayHeaders({ traceId: context.traceId, provider: adapter.slug });
  try {
    const call = await adapter.buildCall(input);
    const upstream = await sendUpstream(call, {
      timeoutMs: options.requestTimeoutMs ?? settings().GW_DEFAULT_REQUEST_TIMEOUT_MS,
      idleTimeoutMs: settings().GW_STREAM_IDLE_TIMEOUT_MS,
      signal: context.request.signal,
    });
    if (upstream.status < 200 || upstream.status >= 300) throw await providerErrorFrom(adapter, upstream);
    const requestId = upstream.headers['x-request-id'];
    if (typeof requestId === 'string') headers['x-request-id'] = requestId;

    if (stream) {
      const clientWantsUsage = (context.body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
      const body = await openStreamRelay(upstream, adapter.createStreamTranslator(input), {
        clientWantsUsage,
        onUsage: (usage) => (outcome.usage = usage),
        onEnd: ({ ok, errorCode }) => {
          outcome.status = 200;
          outcome.errorCode = ok ? undefined : errorCode;
          recordOutcome(context, outcome);
        },
      });
      return {
        status: 200,
        headers: { ...headers, 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' },
        body,
      };
    }

    const raw = await readUpstreamBody(upstream.body, MAX_RESPONSE_BYTES);
    let payload: Uint8Array | string = raw;
    if (adapter.toOpenAIResponse) {
      const translated = adapter.toOpenAIResponse(input, JSON.parse(raw.toString('utf8')));
      outcome.usage = translated.usage as Record<string, unknown> | undefined;
      payload = JSON.stringify(translated);
    } else {
      // Pass-through bytes go out untouched; usage is read from them after the response is sent.
      outcome.usageSource = raw;
    }
    outcome.status = 200;
    recordOutcome(context, outcome);
    return { status: 200, headers: { ...headers, 'content-type': 'application/json' }, body: payload };
  } catch (error) {
    if (error instanceof GatewayError) {
      outcome.status = error.status;
      outcome.errorCode = error.code;
      recordOutcome(context, outcome);
      throw new GatewayError(error.status, error.code, error.message, {
        type: error.type,
        param: error.param,
        providerError: error.providerError,
        headers: { ...headers, ...error.headers },
        cause: error,
      });
    }
    throw error;
  }
}

function readUsage(raw: Buffer): Record<string, unknown> | undefined {
  try {
    const parsed = JSON.parse(raw.toString('utf8')) as { usage?: Record<string, unknown> };
    return parsed.usage;
  } catch {
    return undefined;
  }
}

/** After the response: one log line and one request-log record. Never delays or fails the request. */
function recordOutcome(context: GatewayContext, outcome: InferenceOutcome): void {
  const latencyMs = Math.round((performance.now() - context.startedAt) * 100) / 100;
  runInBackground('request log', async () => {
    if (outcome.usageSource) outcome.usage = readUsage(outcome.usageSource);
    context.log.info('request completed', {
      endpoint: context.endpoint,
      provider: outcome.provider,
      model: outcome.model,
      status: outcome.status,
      error_code: outcome.errorCode,
      latency_ms: latencyMs,
    });
    await writeRequestLog({
      trace_id: context.traceId,
      request_id: context.requestId,
      organisation_id: context.principal.organisationId,
      workspace_id: context.principal.workspaceId,
      api_key_id: context.principal.keyId,
      endpoint: context.endpoint,
      provider: outcome.provider,
      model: outcome.model,
      stream: context.body.stream === true,
      status: outcome.status,
      outcome: outcome.errorCode ? 'error' : 'success',
      error_code: outcome.errorCode,
      latency_ms: latencyMs,
      usage: outcome.usage,
      metadata: context.options.metadata,
      created_at: new Date().toISOString(),
    });
  });
}
