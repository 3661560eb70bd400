import { context as otelContext, SpanKind, SpanStatusCode, trace, TraceFlags, type Attributes, type Tracer } from '@opentelemetry/api';
import type { RequestLogRecord } from './log-record.js';
import { otelTraceId } from './otlp-trace-id.js';
import type { SpanRecord } from './spans.js';
import { merged } from '../merged.js';

/**
 * One finished request as OpenTelemetry spans (GenAI semantic conventions). Loaded with the OTLP SDK on first
 * export (otlp-export.ts), so the OpenTelemetry API stays out of the gateway's cold start.
 */
export function exportSpans(active: Tracer, record: RequestLogRecord): void {
  const parent = trace.setSpanContext(otelContext.active(), { traceId: otelTraceId(record.trace_id), spanId: record.span_id, traceFlags: TraceFlags.SAMPLED, isRemote: true });
  const end = Date.parse(record.created_at);
  const start = end - record.latency_ms;
  const operation = record.endpoint === 'chat' ? 'chat' : record.endpoint === 'embeddings' ? 'embeddings' : record.endpoint === 'completions' ? 'text_completion' : record.endpoint;
  const root = active.startSpan(
    record.model ? `${operation} ${record.model}` : operation,
    { kind: SpanKind.CLIENT, startTime: start, attributes: rootAttributes(record, operation) },
    parent,
  );
  if (record.outcome === 'error') root.setStatus({ code: SpanStatusCode.ERROR, message: record.error?.code ?? undefined });
  const rootContext = trace.setSpan(parent, root);
  for (const span of record.spans) exportChildSpan(active, span, rootContext);
  root.end(end);
}

function exportChildSpan(active: Tracer, span: SpanRecord, parent: ReturnType<typeof trace.setSpan>): void {
  const startTime = Date.parse(span.start_time);
  const attributes: Attributes = merged(span.attributes, { 'gw.span_id': span.span_id, 'gw.span_kind': span.kind });
  if (span.error?.code) attributes['error.type'] = span.error.code;
  const child = active.startSpan(span.kind === 'attempt' ? `attempt ${String(span.attributes['gen_ai.provider.name'] ?? '')}`.trim() : span.name, { kind: span.kind === 'attempt' ? SpanKind.CLIENT : SpanKind.INTERNAL, startTime, attributes }, parent);
  if (span.status === 'error') child.setStatus({ code: SpanStatusCode.ERROR, message: span.error?.code ?? span.error?.message });
  child.end(startTime + (span.duration_ms ?? 0));
}

function rootAttributes(record: RequestLogRecord, operation: string): Attributes {
  const attributes: Attributes = {
    'gen_ai.operation.name': operation,
    'http.response.status_code': record.status,
    'gw.trace_id': record.trace_id,
    'gw.log_id': record.id,
    'gw.workspace_id': record.workspace_id,
    'gw.endpoint': record.endpoint,
    'gw.retry_count': record.retry_count,
  };
  if (record.provider) attributes['gen_ai.provider.name'] = record.provider;
  if (record.model) {
    attributes['gen_ai.request.model'] = record.model;
    attributes['gen_ai.response.model'] = record.model;
  }
  if (record.usage) {
    attributes['gen_ai.usage.input_tokens'] = record.usage.prompt_tokens;
    attributes['gen_ai.usage.output_tokens'] = record.usage.completion_tokens;
  }
  if (record.ttft_ms !== null) attributes['gen_ai.response.time_to_first_chunk'] = record.ttft_ms / 1000;
  if (record.cache_status) attributes['gw.cache_status'] = record.cache_status;
  if (record.cost !== null) attributes['gw.cost_usd'] = record.cost;
  if (record.error?.code) attributes['error.type'] = record.error.code;
  return attributes;
}
