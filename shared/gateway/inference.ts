import { randomUUID } from 'node:crypto';
import type { ApiKeyAuthenticator } from '../auth/authenticate.js';
import { hasScope } from '../auth/principal.js';
import { GatewayError } from '../http/errors.js';
import type { NeutralRequest, NeutralResponse } from '../http/types.js';
import { runInBackground } from '../observability/background.js';
import { requestLogger } from '../observability/logger.js';
import { writeRequestLog } from '../observability/request-log.js';
import type { Endpoint } from '../providers/types.js';
import { settings } from '../settings.js';
import { attemptLeaf, type UsageReport } from './attempt.js';
import type { ConfigResolver } from './config/resolve-config.js';
import { buildRouteTree } from './config/target-tree.js';
import type { GatewayContext } from './context.js';
import { admitRequest, type Admission } from './enforcement/admission.js';
import { releaseAdmission, settleUsage } from './enforcement/settlement.js';
import { parseInferenceBody, validateInferenceBody } from './request-body.js';
import { readRequestOptions } from './request-options.js';
import { leafFromHeaders } from './resolve-target.js';
import { gatewayHeaders } from './response-headers.js';
import { withRetries, type RetryClock, systemClock } from './routing/retry.js';
import { routeRequest, RouteFailure } from './routing/route.js';

export interface InferenceDependencies {
  authenticator: ApiKeyAuthenticator;
  configs: ConfigResolver;
  clock?: RetryClock;
}

/** Authenticates, reads the options, the body and the config, and builds the pipeline context. */
export async function buildGatewayContext(request: NeutralRequest, endpoint: Endpoint, traceId: string, deps: InferenceDependencies): Promise<GatewayContext> {
  const principal = await deps.authenticator.authenticate(request.headers['x-gw-api-key']);
  if (!hasScope(principal, 'completions:write')) {
    throw new GatewayError(403, 'missing_scope', 'This API key lacks the completions:write scope');
  }
  const options = readRequestOptions(request.headers);
  const body = parseInferenceBody(request.body, settings().GW_MAX_BODY_BYTES);
  const config = await deps.configs.resolve(options.config, principal.workspaceId);
  // With a config, a target's override_params may supply the model: each leaf checks it before its call.
  validateInferenceBody(endpoint, body, config !== undefined);
  const routeTree = buildRouteTree(config, leafFromHeaders(options));
  const now = Date.now();
  return {
    request,
    requestId: randomUUID(),
    traceId,
    startedAt: performance.now(),
    deadline: now + (options.requestTimeoutMs ?? settings().GW_UPSTREAM_MAX_DURATION_MS),
    endpoint,
    principal,
    options,
    body,
    routeTree,
    configured: config !== undefined,
    attempts: [],
    log: requestLogger(traceId),
  };
}

/** Routes the call over the target tree (retries, fallback, load balancing) and answers as OpenAI would. */
export async function forwardInference(context: GatewayContext, clock: RetryClock = systemClock): Promise<NeutralResponse> {
  let admission: Admission | undefined;
  try {
    // Policies and budgets, before anything is forwarded: a refusal (429, 412) has consumed nothing.
    admission = await admitRequest(context);
    const { value, leaf, retries } = await routeRequest(context.routeTree, {
      conditionInput: { metadata: context.options.metadata, params: context.body },
      random: clock.random,
      attemptLeaf: (node) =>
        withRetries(node.settings.retry, context.deadline, (retry) => attemptLeaf(context, node.path, node.settings, retry, (report) => settle(report)), clock),
    });
    const headers: Record<string, string> = {
      ...value.headers,
      ...gatewayHeaders({
        traceId: context.traceId,
        provider: value.provider,
        retryAttemptCount: retries,
        cacheStatus: value.cacheStatus,
        lastUsedOptionIndex: context.configured ? leaf.path : undefined,
      }),
      'content-type': value.contentType,
    };
    if (value.contentType.startsWith('text/event-stream')) headers['cache-control'] = 'no-cache';
    return { status: 200, headers, body: value.body };
  } catch (thrown) {
    const failure = thrown instanceof RouteFailure ? thrown.error : thrown;
    if (!(failure instanceof GatewayError)) throw thrown;
    const last = context.attempts.at(-1);
    const held = admission;
    if (held) runInBackground('policy release', () => releaseAdmission(held, failure.upstream, context.log));
    recordOutcome(context, { status: failure.status, errorCode: failure.code });
    throw failure.withHeaders(
      gatewayHeaders({ traceId: context.traceId, provider: last?.provider, retryAttemptCount: thrown instanceof RouteFailure ? thrown.retries : 0 }),
    );
  }

  function settle(report: UsageReport): void {
    recordOutcome(context, { status: 200, errorCode: report.streamErrorCode, usage: report.usage, usageSource: report.usageSource, cacheHit: report.cacheHit === true }, admission);
  }
}

interface Outcome {
  status: number;
  errorCode?: string;
  usage?: Record<string, unknown>;
  usageSource?: Buffer;
  cacheHit?: boolean;
}

/** After the response: one log line and one request-log record with every attempt. Never delays the client. */
function recordOutcome(context: GatewayContext, outcome: Outcome, admission?: Admission): void {
  const latencyMs = Math.round((performance.now() - context.startedAt) * 100) / 100;
  const answered = context.attempts.at(-1);
  runInBackground('request log', async () => {
    const usage = outcome.usage ?? (outcome.usageSource ? readUsage(outcome.usageSource) : undefined);
    // Prices the response and charges its real usage to the policies and budget it was admitted under.
    const cost = outcome.status === 200 ? await settleUsage(admission, { usage, cacheHit: outcome.cacheHit === true, provider: answered?.provider, model: answered?.model }, context.log) : undefined;
    context.log.info('request completed', {
      endpoint: context.endpoint,
      provider: answered?.provider,
      model: answered?.model,
      status: outcome.status,
      error_code: outcome.errorCode,
      latency_ms: latencyMs,
      attempts: context.attempts.length,
    });
    await writeRequestLog({
      trace_id: context.traceId,
      request_id: context.requestId,
      organisation_id: context.principal.organisationId,
      workspace_id: context.principal.workspaceId,
      api_key_id: context.principal.keyId,
      endpoint: context.endpoint,
      provider: answered?.provider,
      model: answered?.model,
      stream: context.body.stream === true,
      status: outcome.status,
      outcome: outcome.errorCode ? 'error' : 'success',
      error_code: outcome.errorCode,
      latency_ms: latencyMs,
      usage,
      cost,
      attempts: context.attempts,
      metadata: context.options.metadata,
      created_at: new Date().toISOString(),
    });
  });
}

function readUsage(raw: Buffer): Record<string, unknown> | undefined {
  try {
    return (JSON.parse(raw.toString('utf8')) as { usage?: Record<string, unknown> }).usage;
  } catch {
    return undefined;
  }
}
