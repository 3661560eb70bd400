import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createFirehoseClient } from '../../shared/observability/engine/aws/clients.js';
import { FirehoseSink } from '../../shared/observability/engine/aws/firehose-sink.js';
import { encodeRow } from '../../shared/observability/engine/aws/row-json.js';
import { PROVISIONAL_ENGINE_COLUMNS } from '../../test/infra/fixtures/request-log-columns.js';

/**
 * What sending one request's log records costs the gateway itself, per transport (docs/deploy.md, "Sending records"):
 * a drain's PutRecordBatch (SDK serialisation, SigV4 signing, HTTP round trip) against a loopback Firehose that
 * answers at once, so the figure is gw's own time without AWS's network and service time; and a JSON log line
 * written to a stream (what a stdout + subscription transport would do instead).
 *
 *   npx tsx bench/measure/log-transport-cost.ts
 */
const ROUNDS = 2_000;
// The loopback Firehose checks no signature, but the client signs every call as it would on AWS.
process.env.AWS_ACCESS_KEY_ID ??= 'local';
process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const request = {
  id: 'req_01JDZ8W6X9QK3M2N4P5R6S7T8V', trace_id: '4bf92f3577b34da6a3ce929d0e0e4736', organisation_id: 'org_01JDZ8W6X9QK3M2N4P5R6S7T8V',
  workspace_id: 'ws_01JDZ8W6X9QK3M2N4P5R6S7T8V', api_key_id: 'key_01JDZ8W6X9QK3M2N4P5R6S7T8V', created_at: Date.now(), provider: 'openai',
  model: 'gpt-4o-mini-2024-07-18', endpoint: '/v1/chat/completions', status: 200, outcome: 'success', latency_ms: 2034, ttfb_ms: 412,
  prompt_tokens: 1234, completion_tokens: 321, total_tokens: 1555, cost: 0.000378, cache_status: 'MISS', retry_count: 0, stream: true,
  target_path: 'config.targets[0]', metadata: { team: 'search', env: 'prod' }, request_body_ref: 'logs/ws/2026-11-27/req/request.json',
  response_body_ref: 'logs/ws/2026-11-27/req/response.json', day: '2026-11-27',
};
const span = { span_id: '00f067aa0ba902b7', trace_id: request.trace_id, request_id: request.id, workspace_id: request.workspace_id, name: 'upstream openai', started_at: Date.now(), duration_ms: 2000, status: 'ok', day: '2026-11-27' };

const server = createServer((incoming, response) => {
  incoming.resume();
  incoming.on('end', () => {
    response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
    response.end(JSON.stringify({ FailedPutCount: 0, RequestResponses: [{ RecordId: 'r' }] }));
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const sink = new FirehoseSink({ client: createFirehoseClient({ region: 'us-east-1', endpoint }), streams: { requests: 'gw-requests', spans: 'gw-spans' }, columns: PROVISIONAL_ENGINE_COLUMNS });

async function perRound(work: () => Promise<void> | void): Promise<{ wallMs: number; cpuMs: number }> {
  for (let i = 0; i < 200; i++) await work();
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let i = 0; i < ROUNDS; i++) await work();
  const used = process.cpuUsage(cpu);
  return { wallMs: (performance.now() - started) / ROUNDS, cpuMs: (used.user + used.system) / 1000 / ROUNDS };
}

const drain = await perRound(async () => {
  sink.append('requests', [request]);
  sink.append('spans', [span]);
  await sink.flush();
});
if (sink.dropped > 0) throw new Error(`${sink.dropped} rows were not accepted: the measurement is not of successful calls`);
// A log line to a stream that discards it: the process-side cost of stdout (Lambda's runtime ships it to CloudWatch).
const sinkStream = new Writable({ write: (_chunk, _encoding, done) => done() });
const line = await perRound(() => {
  sinkStream.write(`${JSON.stringify({ level: 'INFO', message: 'request log', requests: [request], spans: [span] })}\n`);
});
const bytes = encodeRow(request, PROVISIONAL_ENGINE_COLUMNS.requests).byteLength + encodeRow(span, PROVISIONAL_ENGINE_COLUMNS.spans).byteLength;
console.log(`records of one request: ${bytes} bytes of JSON lines (Firehose bills 2 × 5 KB)`);
console.log(`PutRecordBatch in the drain (2 calls, loopback, no AWS latency): ${drain.wallMs.toFixed(2)} ms wall, ${drain.cpuMs.toFixed(2)} ms CPU per request`);
console.log(`JSON log line to a stream: ${line.wallMs.toFixed(3)} ms wall, ${line.cpuMs.toFixed(3)} ms CPU per request`);
server.close();
