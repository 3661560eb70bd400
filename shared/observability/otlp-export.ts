import { createHash } from 'node:crypto';
import { context as otelContext, SpanKind, SpanStatusCode, trace, TraceFlags, type Attributes, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { settings } from '../settings.js';
import { onDrain } from './background.js';
import type { RequestLogRecord } from './log-record.js';
import type { SpanRecord } from './spans.js';

let tracer: Tracer | undefined | null;

/**
 * The OpenTelemetry tracer, built on first use when OTEL_EXPORTER_OTLP_ENDPOINT is set (null otherwise).
 * Spans leave in batches over OTLP/HTTP JSON; a Lambda flushes them at the end of each invocation (drain).
 * Kept off the global API so it cannot clash with an OpenTelemetry setup of the host.
 */
function otlpTracer(): Tracer | null {
  if (tracer !== undefined) return tracer;
  const endpoint = settings().OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint) return (tracer = null);
  const processor = new BatchSpanProcessor(new OTLPTraceExporter({ url: `${endpoint.replace(/\/$/, '')}/v1/traces` }), { scheduledDelayMillis: 1_000 });
  const provider = new BasicTracerProvider({ resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings().OTEL_SERVICE_NAME }), spanProcessors: [processor] });
  onDrain(() => processor.forceFlush());
  tracer = provider.getTracer('gw');
  return tracer;
}

/** gw trace ids are free text (x-gw-trace-id): a UUID maps to its 32 hex digits, anything else to a hash. */
export function otelTraceId(gwTraceId: string): string {
  const hex = gwTraceId.replace(/-/g, '').toLowerCase();
  if (/^[0-9a-f]{32}$/.test(hex) && !/^0+$/.test(hex)) return hex;
  return createHash('sha256').update(gwTraceId).digest('hex').slice(0, 32);
}

/**
 * Exports one finished request as OpenTelemetry spans, with the GenAI semantic conventions: a client span
 * `{operation} {model}` for the request, and a child span per gw stage and upstream attempt. The record is
 * already redacted; bodies are never exported.
 */
export function exportRequestSpans(record: RequestLogRecord): void {
  const active = otlpTracer();
  if (!active) return;
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
  const attributes: Attributes = { ...span.attributes, 'gw.span_id': span.span_id, 'gw.span_kind': span.kind };
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
