import { settings } from '../../../settings.js';
import { onDrain } from '../../background.js';
import type { LogEventSink, QueryEngine } from '../types.js';
import { AthenaQueryEngine } from './athena-engine.js';
import { createAthenaClient, createFirehoseClient, createResultsS3Client } from './clients.js';
import { FirehoseSink } from './firehose-sink.js';
import type { EngineColumnsByTable } from './table-columns.js';

export { AthenaQueryEngine } from './athena-engine.js';
export { AthenaEngineError, AthenaQueryFailedError, AthenaQueryTimeoutError, InvalidExportDestinationError } from './athena-errors.js';
export { FirehoseSink } from './firehose-sink.js';
export type { EngineColumnSpec, EngineColumnsByTable } from './table-columns.js';

/**
 * The request-log engine on AWS, from the settings the stack gives each function (infra/cdk/constructs/request-logs.ts):
 * rows to the two Firehose delivery streams, queries and exports on Athena. `columns` is the one column list
 * (shared/observability/engine/columns.ts). The sink is flushed at every Lambda drain (background.ts), after the
 * response has ended.
 */
export function createAwsLogEngine(columns: EngineColumnsByTable): { sink: LogEventSink; engine: QueryEngine } {
  const current = settings();
  const region = current.AWS_REGION;
  const sink = new FirehoseSink({
    client: createFirehoseClient({ region, endpoint: current.GW_FIREHOSE_ENDPOINT }),
    streams: { requests: current.GW_LOG_STREAM_REQUESTS, spans: current.GW_LOG_STREAM_SPANS },
    columns,
  });
  onDrain(() => sink.flush());
  const engine = new AthenaQueryEngine({
    athena: createAthenaClient({ region, endpoint: current.GW_ATHENA_ENDPOINT, workgroup: current.GW_ATHENA_WORKGROUP }),
    s3: createResultsS3Client({ region, endpoint: current.GW_S3_ENDPOINT }),
    workgroup: current.GW_ATHENA_WORKGROUP,
    database: current.GW_ATHENA_DATABASE,
    timeoutMs: current.GW_LOG_QUERY_TIMEOUT_MS,
    freshnessMs: current.GW_LOG_FRESHNESS_MS,
  });
  return { sink, engine };
}

/** Where exports go: `s3://<results bucket>/exports/<id>/` (the bucket's lifecycle expires them). */
export function awsExportDestination(exportId: string): string {
  const bucket = settings().GW_LOG_RESULTS_BUCKET;
  if (!bucket) throw new Error('GW_LOG_RESULTS_BUCKET is not set: the stack sets it for the request-log engine');
  return `s3://${bucket}/exports/${exportId}/`;
}
