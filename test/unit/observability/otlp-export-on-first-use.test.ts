import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestLogRecord } from '../../../shared/observability/log-record.js';

type OtlpModule = typeof import('../../../shared/observability/otlp-export.js');
type BackgroundModule = typeof import('../../../shared/observability/background.js');

/** The span names of one OTLP/HTTP JSON export body. */
const spanNames = (body: string) =>
  (JSON.parse(body) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ name: string }> }> }> }).resourceSpans.flatMap((resource) =>
    resource.scopeSpans.flatMap((scope) => scope.spans.map((span) => span.name)),
  );

function record(traceId: string): RequestLogRecord {
  return {
    id: `log_${traceId}`, trace_id: traceId, span_id: '0123456789abcdef', created_at: new Date().toISOString(), organisation_id: 'org_1',
    workspace_id: 'ws_1', api_key_id: 'key_1', virtual_key_id: null, endpoint: 'chat', provider: 'openai', model: 'gpt-4o', status: 200,
    latency_ms: 12, ttft_ms: null, usage: null, cost: null, cache_status: null, retry_count: 0, last_used_option: null, metadata: {}, error: null,
    stream: false, outcome: 'success', attempts: [], spans: [], request_body: null, response_body: null, request_id: `req_${traceId}`,
  };
}

describe('OTLP export with its SDK loaded on first use (otlp-export.ts)', () => {
  const bodies: string[] = [];
  let collector: Server;
  let otlp: OtlpModule;
  let background: BackgroundModule;
  beforeAll(async () => {
    collector = createServer((request, response) => {
      const parts: Buffer[] = [];
      request.on('data', (part: Buffer) => parts.push(part));
      request.on('end', () => {
        bodies.push(Buffer.concat(parts).toString('utf8'));
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    // Before the first settings() of this file's module graph, which parses the environment once.
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(collector.address() as AddressInfo).port}/`;
    otlp = await import('../../../shared/observability/otlp-export.js');
    background = await import('../../../shared/observability/background.js');
  });
  afterAll(async () => {
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    await new Promise((resolve) => collector.close(resolve));
  });

  it('delivers the spans of a request exported while the SDK is still loading by the end of the drain', async () => {
    otlp.exportRequestSpans(record('trace-first'));
    otlp.exportRequestSpans(record('trace-second'));
    await background.drainBackgroundWork();
    expect(bodies.flatMap(spanNames)).toEqual(['chat gpt-4o', 'chat gpt-4o']);
  });

  it('keeps exporting once loaded, each drain sending what the requests before it finished', async () => {
    bodies.length = 0;
    otlp.exportRequestSpans({ ...record('trace-third'), model: 'gpt-4o-mini' });
    await background.drainBackgroundWork();
    expect(bodies.flatMap(spanNames)).toEqual(['chat gpt-4o-mini']);
  });
});
