/**
 * What one request's log write costs the process (issue #34): `npx tsx bench/profile/log-append.ts [records]`.
 *
 * Writes N records shaped like the bench's plain chat request (a request row, four spans, small bodies) through
 * `writeRequestLog` into an in-memory DuckDB, flushing every FLUSH_EVERY records (env, default 250: the sink's
 * 500 ms timer at 500 req/s), and reports this process's CPU per record (`process.cpuUsage`: every thread,
 * DuckDB's own included) and how much of it is DuckDB's `flushSync`. Sequential, one core: compare variants with
 * each other.
 *
 * `--after-path`: the whole after-path of a finished request instead (metrics, redaction, bodies, the log write,
 * the `request completed` line), through `recordFinishedRequest` with the embedded store in this process. Run it
 * with stdout on a pipe (`| cat > /dev/null`), as gw's is in the bench.
 */
import { settings } from '../../shared/settings.js';
import type { RequestLogRecord } from '../../shared/observability/log-record.js';
import type { SpanRecord } from '../../shared/observability/spans.js';

const AFTER_PATH = process.argv.includes('--after-path');
const RECORDS = Number(process.argv.filter((arg) => !arg.startsWith('--'))[2] ?? 20_000);
const FLUSH_EVERY = Number(process.env.FLUSH_EVERY ?? 250);
const ROUNDS = 5;

Object.assign(process.env, { GW_LOG_DUCKDB_PATH: ':memory:', GW_REQUEST_LOGS: 'ON', GW_LOCAL_STORE: 'in-process', POWERTOOLS_LOG_LEVEL: AFTER_PATH ? 'INFO' : 'SILENT', POWERTOOLS_DEV: 'false' });

function span(i: number, name: string, kind: SpanRecord['kind'], attributes: SpanRecord['attributes']): SpanRecord {
  const start = new Date(Date.UTC(2026, 10, 27, 12) + i).toISOString();
  return { span_id: `${i.toString(16).padStart(12, '0')}${name.length.toString(16).padStart(4, '0')}`, parent_span_id: 'a1b2c3d4e5f60718', name, kind, start_time: start, end_time: start, duration_ms: 0.42, status: 'ok', attributes };
}

function record(i: number): RequestLogRecord {
  const created = new Date(Date.UTC(2026, 10, 27, 12) + i).toISOString();
  const id = `5f0c7a52-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
  return {
    id,
    request_id: id,
    trace_id: `trace-${id}`,
    span_id: 'a1b2c3d4e5f60718',
    created_at: created,
    organisation_id: '0e3c1d4a-6a35-4f0b-9d1e-2a9a4b6b7c8d',
    workspace_id: '6ccac8c9-d363-4324-9aac-e0d11afc6858',
    api_key_id: 'b5d2a8f0-1c3e-4b7a-9e2d-4f6a8c0e2b4d',
    virtual_key_id: null,
    endpoint: 'chat.completions',
    provider: 'openai',
    model: 'gpt-4o-mini',
    status: 200,
    latency_ms: 1.23,
    ttft_ms: null,
    usage: { prompt_tokens: 9, completion_tokens: 12, total_tokens: 21, cached_tokens: 0, reasoning_tokens: 0 },
    cost: 0.000_009,
    cache_status: 'DISABLED',
    retry_count: 0,
    last_used_option: null,
    metadata: {},
    error: null,
    stream: false,
    outcome: 'success',
    attempts: [{ target_path: 'config', status: 200, latency_ms: 0.9, retry: 0, provider: 'openai', model: 'gpt-4o-mini', cache_status: 'DISABLED' }],
    spans: [
      span(i, 'auth', 'stage', {}),
      span(i, 'policy_check', 'stage', {}),
      span(i, 'attempt', 'attempt', { 'gw.retry': 0, 'gw.target_path': 'config', 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'gpt-4o-mini', 'http.response.status_code': 200, 'gw.cache_status': 'DISABLED' }),
      span(i, 'cache_lookup', 'stage', {}),
    ],
    request_body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hello in one short sentence.' }] },
    response_body: { id: 'chatcmpl-bench', object: 'chat.completion', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, message: { role: 'assistant', content: 'Hello there, friend!' }, finish_reason: 'stop' }], usage: { prompt_tokens: 9, completion_tokens: 12, total_tokens: 21 } },
  };
}

/** The after-path's input for record `i`: the record's fields, the bodies as the pipeline holds them, a credential. */
async function afterPathWriter(): Promise<(record: RequestLogRecord) => Promise<void>> {
  const { recordFinishedRequest } = await import('../../shared/observability/request-record.js');
  const { KnownCredentials } = await import('../../shared/observability/redact.js');
  // The line as gw writes it; a tree from before issue #34 wrote it synchronously from shared/gateway/inference.ts.
  const line = await import('../../shared/observability/request-line.js' as string).then(
    (module: { logRequestCompleted: (fields: Record<string, unknown>) => void }) => module.logRequestCompleted,
    () => (fields: Record<string, unknown>) => void process.stdout.write(`${JSON.stringify({ level: 'INFO', message: 'request completed', timestamp: new Date().toISOString(), service: 'gw', ...fields })}\n`),
  );
  const credentials = new KnownCredentials();
  credentials.add('sk-bench-provider-key-0123456789');
  return async (record) => {
    const { request_body, response_body, ...fields } = record;
    line({ trace_id: record.trace_id, workspace_id: record.workspace_id, endpoint: record.endpoint, provider: record.provider, model: record.model, status: record.status, latency_ms: record.latency_ms, attempts: 1 });
    await recordFinishedRequest({ ...fields, requestBody: request_body, responseBody: JSON.stringify(response_body), credentials });
  };
}

async function main(): Promise<void> {
  // The embedded store sets its endpoint in the environment: settings are read after it started.
  const server = AFTER_PATH ? await (await import('../../infra/local/server.js')).startLocalServer({ port: 0, dataDir: ':memory:', env: { GW_LOCAL_SCHEDULE_INTERVAL_MS: '0' } }) : undefined;
  settings();
  let writeRequestLog: (record: RequestLogRecord) => Promise<void> = (await import('../../shared/observability/request-log.js')).writeRequestLog;
  if (AFTER_PATH) writeRequestLog = await afterPathWriter();
  const { logEngines, closeLogEngines } = await import('../../shared/observability/engine/select.js');
  const { sink } = await logEngines();
  const { DuckDBAppender } = await import('@duckdb/node-api');
  // DuckDB's own append, timed apart by wrapping the method every appender shares.
  let flushMicros = 0;
  const byTable = new Map<number, number>();
  const original = DuckDBAppender.prototype.flushSync;
  DuckDBAppender.prototype.flushSync = function timedFlush(this: InstanceType<typeof DuckDBAppender>) {
    const started = performance.now();
    original.call(this);
    const took = (performance.now() - started) * 1000;
    flushMicros += took;
    byTable.set(this.columnCount, (byTable.get(this.columnCount) ?? 0) + took);
  };
  const records = Array.from({ length: RECORDS }, (_, i) => record(i));
  const write = async (from: number, count: number) => {
    for (let i = from; i < from + count; i++) {
      await writeRequestLog(records[i % RECORDS]);
      if ((i + 1) % FLUSH_EVERY === 0) await sink.flush();
    }
    await sink.flush();
  };
  await write(0, 2_000);
  const perRecord: number[] = [];
  const flushPerRecord: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    flushMicros = 0;
    const cpu = process.cpuUsage();
    await write(0, RECORDS);
    const used = process.cpuUsage(cpu);
    perRecord.push((used.user + used.system) / RECORDS);
    flushPerRecord.push(flushMicros / RECORDS);
  }
  const say = (text: string) => process.stderr.write(`${text}\n`);
  if (process.env.BY_TABLE) say([...byTable].map(([columns, micros]) => `${columns} columns: ${(micros / RECORDS / ROUNDS).toFixed(1)} µs/record`).join(', '));
  await closeLogEngines();
  await server?.close();
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  say(`${AFTER_PATH ? 'after-path' : 'log write'} of ${RECORDS} records (1 request row + 4 span rows each), flushed every ${FLUSH_EVERY}, ${ROUNDS} rounds, Node ${process.version}`);
  say(`process CPU per record: median ${median(perRecord).toFixed(1)} µs (rounds ${perRecord.map((value) => value.toFixed(1)).join(', ')}); of it DuckDB flushSync (wall) ${median(flushPerRecord).toFixed(1)} µs`);
}

void main();
