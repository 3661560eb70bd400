import type { Tracer } from '@opentelemetry/api';
import { settings } from '../settings.js';
import { onDrain } from './background.js';
import { logger } from './logger.js';
import type { RequestLogRecord } from './log-record.js';

/** The tracer and the module that turns a record into spans, loaded together on first use. */
interface Exporting {
  tracer: Tracer;
  exportSpans: (active: Tracer, record: RequestLogRecord) => void;
}

let tracer: Promise<Exporting | null> | undefined;
/** The last span export started; they all wait on the same tracer, so this settles after every earlier one. */
let lastExport: Promise<void> = Promise.resolve();

/**
 * The OpenTelemetry tracer, built on first use when OTEL_EXPORTER_OTLP_ENDPOINT is set (null otherwise).
 * Spans leave in batches over OTLP/HTTP JSON; a Lambda flushes them at the end of each invocation (drain).
 * Kept off the global API so it cannot clash with an OpenTelemetry setup of the host. The SDK and exporter are
 * imported only then, so a gateway without OTLP export never loads them (they stay out of its cold start); the
 * OpenTelemetry API and the span mapping (otlp-spans.ts) come with them (~12 KiB of the cold start otherwise).
 */
function otlpTracer(): Promise<Exporting | null> {
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
  tracer = loading.then((started) => (started ? { tracer: started.tracer, exportSpans: started.exportSpans } : null));
  return tracer;
}

async function startExporter(endpoint: string): Promise<Exporting & { processor: { forceFlush(): Promise<void> } }> {
  const [{ OTLPTraceExporter }, { resourceFromAttributes }, { BasicTracerProvider, BatchSpanProcessor }, { ATTR_SERVICE_NAME }, { exportSpans }] = await Promise.all([
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/semantic-conventions'),
    import('./otlp-spans.js'),
  ]);
  const processor = new BatchSpanProcessor(new OTLPTraceExporter({ url: `${endpoint.replace(/\/$/, '')}/v1/traces` }), { scheduledDelayMillis: 1_000 });
  const provider = new BasicTracerProvider({ resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings().OTEL_SERVICE_NAME }), spanProcessors: [processor] });
  return { processor, tracer: provider.getTracer('gw'), exportSpans };
}

export { otelTraceId } from './otlp-trace-id.js';

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
      if (active) active.exportSpans(active.tracer, record);
    })
    .catch((error: unknown) => logger.warn('could not export a request as OTLP spans', { reason: (error as Error).message }));
}

