import type { ApiKeyAuthenticator } from '../auth/authenticate.js';
import { hasScope, type Principal } from '../auth/principal.js';
import { GatewayError } from '../http/errors.js';
import { isEventStream } from '../http/media-type.js';
import { CUT_AT_SHUTDOWN, isShutdownCut } from '../http/shutdown-cut.js';
import { isStreamBody, type NeutralRequest, type NeutralResponse, type ResponseBody } from '../http/types.js';
import { backgroundCapacity, runInBackground } from '../observability/background.js';
import { requestLogger } from '../observability/logger.js';
import { noteGatewayAuthenticationFailure } from '../audit/gateway-authentication-failures.js';
import { BodyCapture, observedStream } from '../observability/body-capture.js';
import { answerMarkerOf, finishedRequestOf, rejectedAnswerMarkerOf, rejectedRequestOf, type RequestOutcome } from './finished-request.js';
import { recordFinishedRequest, type FinishedRequest } from '../observability/request-record.js';
import { noteAnswered } from '../observability/request-log.js';
import { logRequestCompleted } from '../observability/request-line.js';
import { newSpanId, startSpan, withSpan, type SpanHost } from '../observability/spans.js';
import type { Endpoint } from '../providers/types.js';
import { settings } from '../settings.js';
import { attemptLeaf } from './attempt.js';
import type { UsageReport } from './attempt-types.js';
import type { ConfigResolver } from './config/resolve-config.js';
import { buildRouteTree } from './config/target-tree.js';
import type { GatewayContext } from './context.js';
import { admitRequest, type Admission } from './enforcement/admission.js';
import { applyGuardrails } from './guardrail-stage.js';
import { checkAllowedModels } from './allowed-models.js';
import { rememberReservations, settleUsage } from './enforcement/settlement.js';
import { settleBeforeAnswering, settleFailedRequest, usageOf } from './attempt-settle.js';
import { parseInferenceBody, validateInferenceBody } from './request-body.js';
import { loadDialectCodec } from '../dialects/registry.js';
import { readRequestOptions } from './request-options.js';
import { prefetchWorkspaceState } from './workspace-prefetch.js';
import { leafFromHeaders } from './resolve-target.js';
import { resolveRequestConfig } from './deployment-target.js';
import { applyWorkspaceProvider } from './provider-target.js';
import { gatewayHeaders } from './response-headers.js';
import { requestIdOf } from './request-id.js';
import { type RetryClock, systemClock } from './routing/retry.js';
import { routeAttempts } from './attempt-routing.js';
import { merged } from '../merged.js';

export interface InferenceDependencies {
  authenticator: ApiKeyAuthenticator;
  configs: ConfigResolver;
  clock?: RetryClock;
}

/**
 * Authenticates, reads the options, the body and the config, and builds the pipeline context. A request
 * refused after authentication (bad body, scope, config) still gets its log record.
 */
export async function buildGatewayContext(request: NeutralRequest, endpoint: Endpoint, traceId: string, deps: InferenceDependencies): Promise<GatewayContext> {
  const startedAt = performance.now();
  try {
    return await buildContext(request, endpoint, traceId, deps, startedAt);
  } catch (thrown) {
    const known = authenticatedRequests.get(request);
    if (known && thrown instanceof GatewayError) recordRejectedRequest(rejectedRequestOf({ request, endpoint, traceId, startedAt, ...known }, thrown));
    throw thrown;
  }
}

/** The dialects' request and answer translation (shared/dialects/edge.ts), imported with the first dialect request. */
const dialectEdge = () => import('../dialects/edge.js');

/** Who a request turned out to be, kept until its context exists, for the log record of an early refusal. */
const authenticatedRequests = new WeakMap<NeutralRequest, { principal: Principal } & SpanHost>();

async function buildContext(request: NeutralRequest, endpoint: Endpoint, traceId: string, deps: InferenceDependencies, startedAt: number): Promise<GatewayContext> {
  const spans: SpanHost = { spans: [], rootSpanId: newSpanId() };
  const authSpan = startSpan(spans, 'auth');
  const principal = await deps.authenticator.authenticate(request.headers['x-gw-api-key']).catch((thrown: unknown) => {
    authSpan.end(undefined, thrown);
    noteGatewayAuthenticationFailure(request, thrown, traceId);
    throw thrown;
  });
  authSpan.end({ 'gw.workspace_id': principal.workspaceId });
  authenticatedRequests.set(request, { principal, ...spans });
  if (!hasScope(principal, 'completions:write')) {
    throw new GatewayError(403, 'missing_scope', 'This API key lacks the completions:write scope');
  }
  prefetchWorkspaceState(principal.workspaceId);
  const options = readRequestOptions(request.headers);
  // An inbound dialect's body is checked by its codec (and a Responses conversation expanded); it stays in its dialect.
  const dialect = await loadDialectCodec(endpoint);
  const parsedBody = parseInferenceBody(request.body, settings().GW_MAX_BODY_BYTES);
  const body = dialect ? await (await dialectEdge()).prepareDialectBody(dialect, parsedBody, principal.workspaceId) : parsedBody;
  // x-gw-provider: @<slug>: a workspace provider's credential, model allowlist and limits.
  const workspaceProvider = await applyWorkspaceProvider(options, principal);
  const resolved = await resolveRequestConfig(options, principal, deps.configs, deps.authenticator, request.headers);
  const config = resolved?.config;
  // With a config, a target's override_params may supply the model: each leaf checks it before its call.
  validateInferenceBody(endpoint, body, config !== undefined);
  const routeTree = buildRouteTree(config, leafFromHeaders(options), resolved?.source);
  checkAllowedModels(routeTree, body);
  const now = Date.now();
  return {
    request,
    requestId: requestIdOf(request),
    traceId,
    startedAt,
    deadline: now + (options.requestTimeoutMs ?? settings().GW_UPSTREAM_MAX_DURATION_MS),
    endpoint,
    dialect,
    principal,
    options,
    body,
    routeTree,
    workspaceProvider,
    configured: config !== undefined,
    attempts: [],
    log: requestLogger(traceId, principal.workspaceId),
    ...spans,
  };
}

/** Routes the call over the target tree (retries, fallback, load balancing) and answers as OpenAI would. */
export async function forwardInference(context: GatewayContext, clock: RetryClock = systemClock): Promise<NeutralResponse> {
  let admission: Admission | undefined;
  let settled: UsageReport | undefined;
  // Backpressure: while the after-path (logs, charges) is far behind, new requests wait instead of piling on.
  await backgroundCapacity();
  try {
    // Guardrails first: a denied request (400 guardrail_violation) consumes no policy, budget or cache unit.
    await applyGuardrails(context);
    // Policies and budgets, before anything is forwarded: a refusal (429, 412) has consumed nothing.
    admission = await withSpan(context, 'policy_check', () => admitRequest(context));
    rememberReservations(admission, Date.now(), context.log);
    const { value, leaf } = await routeAttempts(context, clock, (leafPath, leafSettings, retry) => attemptLeaf(context, leafPath, leafSettings, retry, (report) => settle(report)));
    // An inbound dialect's answer: canonical → dialect (event by event for streams), a stored Response kept.
    if (context.dialect) Object.assign(value, await (await dialectEdge()).dialectAnswer(context, context.dialect, value));
    const headers: Record<string, string> = merged(
      value.headers,
      gatewayHeaders({
        traceId: context.traceId,
        provider: value.provider,
        attempts: context.attempts,
        cacheStatus: value.cacheStatus,
        lastUsedOptionIndex: context.configured ? leaf.path : undefined,
      }),
      { 'content-type': value.contentType },
    );
    if (isEventStream(value.contentType)) headers['cache-control'] = 'no-cache';
    const answer = deliverAndRecord(value.body, { cacheStatus: value.cacheStatus, lastUsedOption: context.configured ? leaf.path : undefined });
    await settleBeforeAnswering(context, admission, settled, answer);
    return { status: 200, headers, body: answer };
  } catch (thrown) {
    // Every way out gives back what admission took and leaves a log record, a bug (a 500) included.
    const failed = settleFailedRequest(context, thrown, admission);
    recordOutcome(context, failed.outcome);
    throw failed.error;
  }

  // The usage report arrives from the attempt (at once, or at the end of a stream); the record is made only
  // once the response has gone: a buffered body right away, a stream after its last byte.
  function settle(report: UsageReport): void {
    settled = report;
  }

  function deliverAndRecord(body: ResponseBody, known: Pick<Outcome, 'cacheStatus' | 'lastUsedOption'>): ResponseBody {
    const outcomeOf = (extra: Partial<Outcome>): Outcome =>
      merged(
        {
          status: 200,
          errorCode: settled?.streamErrorCode ?? (settled ? undefined : 'client_closed'),
          usage: settled?.usage,
          usageSource: settled?.usageSource,
          cacheHit: settled?.cacheHit === true,
        },
        known,
        extra,
      ) as Outcome;
    if (!isStreamBody(body)) {
      recordOutcome(context, outcomeOf({ responseBody: body }), admission);
      return body;
    }
    // The captured text is only ever stored in the request log: with logs off nothing is kept (issue #34).
    const capture = settings().GW_REQUEST_LOGS ? new BodyCapture(settings().GW_LOG_BODY_MAX_BYTES) : undefined;
    let ttftMs: number | undefined;
    return observedStream(
      body,
      capture,
      () => (ttftMs = Math.round((performance.now() - context.startedAt) * 100) / 100),
      () => recordOutcome(context, outcomeOf({ ttftMs, responseBody: capture?.text(), responseTruncated: capture?.truncated }), admission),
    );
  }
}

interface Outcome extends RequestOutcome {
  /** A pass-through body, read for usage only after the response went out. */
  usageSource?: Buffer;
}

/**
 * The one after-path of every gateway request (every endpoint and dialect): prices and charges the usage, logs
 * one line, and hands the record to shared/observability (log rows, metrics, OTLP). Called once
 * the response has gone; runs in the background, so it never delays or fails the client.
 */
export function recordOutcome(context: GatewayContext, given: Outcome, admission?: Admission): void {
  // Cut by the edge at shutdown: the record says so, whatever the abort looked like from inside (a client that left).
  const outcome = isShutdownCut(context.request.signal) ? merged(given, { errorCode: CUT_AT_SHUTDOWN, status: given.status === 499 ? 503 : given.status }) : given;
  const latencyMs = Math.round((performance.now() - context.startedAt) * 100) / 100;
  const answered = context.attempts.at(-1);
  // Before the answer (or a stream's end) is released: a kill -9 before the record below still leaves one (issue #42).
  noteAnswered(() => answerMarkerOf(context, outcome, latencyMs));
  runInBackground('request log', async () => {
    const usage = usageOf(outcome);
    // Prices the response and charges its real usage to the policies and budget it was admitted under.
    // A charge that cannot be settled (the store gone or failing) is logged; it never costs the request its log record.
    const cost =
      outcome.status === 200
        ? await settleUsage(admission, { usage, cacheHit: outcome.cacheHit === true, provider: answered?.provider, model: answered?.model }, context.log).catch((error: unknown) => {
            context.log.error('the request\'s usage could not be settled', { error: error as Error });
            return undefined;
          })
        : undefined;
    logRequestCompleted({
      trace_id: context.traceId,
      workspace_id: context.principal.workspaceId,
      endpoint: context.endpoint,
      provider: answered?.provider,
      model: answered?.model,
      status: outcome.status,
      error_code: outcome.errorCode,
      latency_ms: latencyMs,
      attempts: context.attempts.length,
      // For the human line of the local terminal (GW_LOG_FORMAT=pretty): what was asked, what it used and cost.
      method: context.request.method,
      path: context.request.path,
      prompt_tokens: usage?.prompt_tokens,
      completion_tokens: usage?.completion_tokens,
      cost_usd: cost,
    });
    await recordFinishedRequest(finishedRequestOf(context, merged(outcome, { usage }), latencyMs, cost));
  });
}

/** The record of a request refused before its context existed: its marker now, before the refusal is answered. */
export function recordRejectedRequest(finished: FinishedRequest): void {
  noteAnswered(() => rejectedAnswerMarkerOf(finished));
  runInBackground('request log', () => recordFinishedRequest(finished));
}
