import { settings } from '../../../settings.js';
import { onDrain } from '../../background.js';
import type { LogEventSink, QueryEngine, SqlStatement } from '../types.js';
import type { AthenaQueryEngine } from './athena-engine.js';
import { createFirehoseClient } from './clients.js';
import { FirehoseSink } from './firehose-sink.js';
import type { EngineColumnsByTable } from './table-columns.js';

export { AthenaEngineError, AthenaQueryFailedError, AthenaQueryTimeoutError, InvalidExportDestinationError } from './athena-errors.js';
export type { EngineColumnSpec, EngineColumnsByTable } from './table-columns.js';

/**
 * The request-log engine on AWS, from the settings the stack gives each function (infra/cdk/constructs/request-logs.ts):
 * rows to the two Firehose delivery streams, queries and exports on Athena. `columns` is the one column list
 * (shared/observability/engine/columns.ts). Call it once per process: the sink is flushed at every Lambda drain
 * (background.ts), after the response has ended.
 */
export function createAwsLogEngine(columns: EngineColumnsByTable): { sink: LogEventSink; engine: QueryEngine } {
  return { sink: createAwsLogSink(columns), engine: createAwsQueryEngine() };
}

/** The gateway's half: the Firehose sink, registered with the Lambda drain. */
export function createAwsLogSink(columns: EngineColumnsByTable): LogEventSink {
  const current = settings();
  const sink = new FirehoseSink({
    client: createFirehoseClient({ region: current.AWS_REGION, endpoint: current.GW_FIREHOSE_ENDPOINT }),
    streams: { requests: current.GW_LOG_STREAM_REQUESTS, spans: current.GW_LOG_STREAM_SPANS },
    columns,
  });
  onDrain(() => sink.flush());
  return sink;
}

/**
 * The control plane's half: the Athena engine. The Athena and S3 clients load with the first query, so a function
 * that only writes rows (the gateway) never pays for them in its bundle's cold start.
 */
export function createAwsQueryEngine(): QueryEngine {
  let athena: Promise<AthenaQueryEngine> | undefined;
  const engine = () => (athena ??= import('./athena-from-settings.js').then((module) => module.createAthenaEngineFromSettings()));
  return {
    dialect: 'trino',
    freshnessMs: settings().GW_LOG_FRESHNESS_MS,
    query: async (statement: SqlStatement) => (await engine()).query(statement),
    startExport: async (statement, format, destination) => (await engine()).startExport(statement, format, destination),
    exportStatus: async (jobId) => (await engine()).exportStatus(jobId),
  };
}

/** Where exports go: `s3://<results bucket>/exports/<id>/` (the bucket's lifecycle expires them). */
export function awsExportDestination(exportId: string): string {
  const bucket = settings().GW_LOG_RESULTS_BUCKET;
  if (!bucket) throw new Error('GW_LOG_RESULTS_BUCKET is not set: the stack sets it for the request-log engine');
  return `s3://${bucket}/exports/${exportId}/`;
}
