import { createHash } from 'node:crypto';
import { context as otelContext, SpanKind, SpanStatusCode, trace, TraceFlags, type Attributes, type Tracer } from '@opentelemetry/api';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { settings } from '../settings.js';
import { onDrain } from './background.js';
import { logger } from './logger.js';
import type { RequestLogRecord } from './log-record.js';
import type { SpanRecord } from './spans.js';
import { merged } from '../merged.js';

let tracer: Promise<Tracer | null> | undefined;
/** The last span export started; they all wait on the same tracer, so this settles after every earlier one. */
let lastExport: Promise<void> = Promise.resolve();

/**
 * The OpenTelemetry tracer, built on first use when OTEL_EXPORTER_OTLP_ENDPOINT is set (null otherwise).
 * Spans leave in batches over OTLP/HTTP JSON; a Lambda flushes them at the end of each invocation (drain).
 * Kept off the global API so it cannot clash with an OpenTelemetry setup of the host. The SDK and exporter are
 * imported only then, so a gateway without OTLP export never loads them (they stay out of its cold start).
 */
function otlpTracer(): Promise<Tracer | null> {
  if (tracer) return tracer;
  const endpoint = settings().OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint) return (tracer = Promise.resolve(null));
  const loading = startExporter(endpoint).catch((error: unknown) => {
    logger.warn('OTLP export is off: the OpenTelemetry SDK failed to load', { reason: (error as Error).message });
    return undefined;
  });
  // Registered now, not once loaded: a drain that starts while the SDK is still loading waits for it and for the
  // spans queued meanwhile, then flushes.
  onDrain(async () => {
    await lastExport;
    await (await loading)?.processor.forceFlush();
  });
  tracer = loading.then((started) => started?.tracer ?? null);
  return tracer;
}

async function startExporter(endpoint: string): Promise<{ processor: { forceFlush(): Promise<void> }; tracer: Tracer }> {
  const [{ OTLPTraceExporter }, { resourceFromAttributes }, { BasicTracerProvider, BatchSpanProcessor }] = await Promise.all([
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace-base'),
  ]);
  const processor = new BatchSpanProcessor(new OTLPTraceExporter({ url: `${endpoint.replace(/\/$/, '')}/v1/traces` }), { scheduledDelayMillis: 1_000 });
  const provider = new BasicTracerProvider({ resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings().OTEL_SERVICE_NAME }), spanProcessors: [processor] });
  return { processor, tracer: provider.getTracer('gw') };
}

/** gw trace ids are free text (x-gw-trace-id): a UUID maps to its 32 hex digits, anything else to a hash. */
export function otelTraceId(gwTraceId: string): string {
  const hex = gwTraceId.replace(/-/g, '').toLowerCase();
  if (/^[0-9a-f]{32}$/.test(hex) && !/^0+$/.test(hex)) return hex;
  return createHash('sha256').update(gwTraceId).digest('hex').slice(0, 32);
}

/** True when finished requests are exported as OTLP spans (OTEL_EXPORTER_OTLP_ENDPOINT set). */
export function otlpExportConfigured(): boolean {
  return Boolean(settings().OTEL_EXPORTER_OTLP_ENDPOINT);
}

/**
 * Exports one finished request as OpenTelemetry spans, with the GenAI semantic conventions: a client span
 * `{operation} {model}` for the request, and a child span per gw stage and upstream attempt. The record is
 * already redacted; bodies are never exported.
 */
export function exportRequestSpans(record: RequestLogRecord): void {
  // Spans leave in the order requests finished: every export waits on the same pending tracer.
  lastExport = otlpTracer()
    .then((active) => {
      if (active) exportSpans(active, record);
    })
    .catch((error: unknown) => logger.warn('could not export a request as OTLP spans', { reason: (error as Error).message }));
}

function exportSpans(active: Tracer, record: RequestLogRecord): void {
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
