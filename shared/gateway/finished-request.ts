import type { AnswerMarker } from '../observability/answer-marker.js';
import type { GatewayContext } from './context.js';
import { recordHead, UNANSWERED_FIELDS } from '../observability/log-record.js';
import type { FinishedRequest } from '../observability/request-record.js';
import { knownRequestCredentials } from '../observability/request-credentials.js';
import { newSpanId } from '../observability/spans.js';
import { normaliseUsage } from '../observability/usage.js';
import { isoTime } from '../iso-time.js';
import { requestIdOf } from './request-id.js';

/** How a gateway request ended, as the pipeline knows it when the response has gone. */
export interface RequestOutcome {
  status: number;
  errorCode?: string;
  errorType?: string;
  errorMessage?: string;
  usage?: Record<string, unknown>;
  cacheHit?: boolean;
  cacheStatus?: string;
  /** The config target that answered (`config.targets[1]`), when a config shaped the route. */
  lastUsedOption?: string;
  ttftMs?: number;
  responseBody?: string | Uint8Array;
  responseTruncated?: boolean;
}

/** Everything the log record needs, taken from the request's context and its outcome. */
export function finishedRequestOf(context: GatewayContext, outcome: RequestOutcome, latencyMs: number, cost: number | null | undefined): FinishedRequest {
  const answered = context.attempts.at(-1);
  const errored = outcome.status >= 400 || outcome.errorCode !== undefined;
  // The spreads go last: on Node 20 every property written after a leading spread costs ~1 µs (eslint.config.js).
  return {
    ttft_ms: outcome.ttftMs ?? null,
    usage: normaliseUsage(outcome.usage) ?? null,
    cost: cost ?? null,
    cache_status: outcome.cacheStatus ?? answered?.cache_status ?? null,
    retry_count: context.attempts.filter((attempt) => attempt.retry > 0).length,
    last_used_option: outcome.lastUsedOption ?? null,
    metadata: context.options.metadata,
    error: errored ? { type: outcome.errorType ?? null, code: outcome.errorCode ?? null, message: outcome.errorMessage ?? null } : null,
    error_code: outcome.errorCode,
    stream: context.body.stream === true,
    outcome: errored ? 'error' : 'success',
    attempts: context.attempts,
    spans: context.spans ?? [],
    requestBody: context.body,
    // Decoded only if stored (log-bodies.ts).
    responseBody: outcome.responseBody,
    responseTruncated: outcome.responseTruncated,
    credentials: knownRequestCredentials(context.request),
    ...answerOf(context, outcome, latencyMs),
    ...recordHead(context.requestId, context.traceId, context.rootSpanId ?? newSpanId(), isoTime(Date.now()), context.principal),
  };
}

/**
 * The marker journaled just before the answer is released (issue #42): the record's head and outcome, nothing a
 * caller wrote. Its id and head are the record's, so the full record written later supersedes it.
 */
export function answerMarkerOf(context: GatewayContext, outcome: RequestOutcome, latencyMs: number): AnswerMarker {
  // The spreads go last (eslint.config.js: properties after a spread are slow on Node 20); no key overlaps.
  return {
    stream: context.body.stream === true,
    error_code: outcome.errorCode ?? null,
    error_type: outcome.errorType ?? null,
    ...answerOf(context, outcome, latencyMs),
    ...recordHead(context.requestId, context.traceId, context.rootSpanId ?? newSpanId(), isoTime(Date.now()), context.principal),
  };
}

/** The marker of a request refused before its context existed (rejectedRequestOf's record, without what the caller wrote). */
export function rejectedAnswerMarkerOf(finished: FinishedRequest): AnswerMarker {
  return {
    id: finished.id,
    trace_id: finished.trace_id,
    span_id: finished.span_id,
    created_at: finished.created_at,
    organisation_id: finished.organisation_id,
    workspace_id: finished.workspace_id,
    api_key_id: finished.api_key_id,
    virtual_key_id: finished.virtual_key_id,
    endpoint: finished.endpoint,
    provider: finished.provider,
    model: finished.model,
    status: finished.status,
    latency_ms: finished.latency_ms,
    stream: finished.stream,
    error_code: finished.error_code ?? null,
    error_type: finished.error?.type ?? null,
  };
}

/** What the record and its marker both say of the answer: who answered (or was asked), its status and latency. */
function answerOf(context: GatewayContext, outcome: RequestOutcome, latencyMs: number) {
  const answered = context.attempts.at(-1);
  return {
    virtual_key_id: virtualKeyOf(context),
    endpoint: context.endpoint,
    provider: answered?.provider ?? null,
    model: answered?.model ?? (typeof context.body.model === 'string' ? context.body.model : null),
    status: outcome.status,
    latency_ms: latencyMs,
  };
}

/** The virtual key the answering target used (a config's target, or the x-gw-virtual-key header). */
function virtualKeyOf(context: GatewayContext): string | null {
  const lastAttempt = (context.spans ?? []).filter((span) => span.kind === 'attempt').at(-1);
  const fromTarget = lastAttempt?.attributes['gw.virtual_key_id'];
  return typeof fromTarget === 'string' ? fromTarget : (context.options.virtualKey ?? null);
}

/**
 * A request refused after authentication but before the pipeline ran (bad body, missing scope, unknown
 * config, …): it still gets its log record, with what is known of it.
 */
export function rejectedRequestOf(
  known: { request: GatewayContext['request']; endpoint: GatewayContext['endpoint']; traceId: string; principal: GatewayContext['principal']; startedAt: number; spans?: GatewayContext['spans']; rootSpanId?: string },
  error: { status: number; code: string; type: string; message: string },
): FinishedRequest {
  const latencyMs = Math.round((performance.now() - known.startedAt) * 100) / 100;
  let metadata: Record<string, string> = {};
  try {
    const parsed = JSON.parse(known.request.headers['x-gw-metadata'] ?? '{}') as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) metadata = Object.fromEntries(Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  } catch {
    // An invalid x-gw-metadata is what was refused: the record keeps none.
  }
  return {
    virtual_key_id: null,
    endpoint: known.endpoint,
    provider: null,
    model: null,
    status: error.status,
    latency_ms: latencyMs,
    metadata,
    error: { type: error.type, code: error.code, message: error.message },
    error_code: error.code,
    stream: false,
    outcome: 'error',
    attempts: [],
    spans: known.spans ?? [],
    credentials: knownRequestCredentials(known.request),
    ...UNANSWERED_FIELDS,
    ...recordHead(requestIdOf(known.request), known.traceId, known.rootSpanId ?? newSpanId(), new Date().toISOString(), known.principal),
  };
}
