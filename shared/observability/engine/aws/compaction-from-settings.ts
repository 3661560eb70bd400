import { settings } from '../../../settings.js';
import { AthenaQueryEngine } from './athena-engine.js';
import { createAthenaClient, createLogBucketS3Client } from './clients.js';
import { compactRequestLogs, type CompactionOptions, type DayCompaction } from './compaction.js';

/**
 * The daily compaction with what the stack gives its function: its own workgroup (GW_ATHENA_COMPACTION_WORKGROUP:
 * a scan limit that fits a whole day, apart from the read APIs' cutoff), the read APIs' database, the
 * data bucket (GW_LOG_DATA_BUCKET). `now` is the schedule's event time; `deadline` the function's own end, less a
 * margin to stop a running UNLOAD and return.
 */
export async function compactRequestLogsFromSettings(now: Date, deadline: number, extra: Pick<CompactionOptions, 'gcGraceMs'> = {}): Promise<DayCompaction[]> {
  const current = settings();
  if (!current.GW_LOG_DATA_BUCKET) throw new Error('GW_LOG_DATA_BUCKET is not set: the stack sets it for the request-log compaction');
  const s3 = createLogBucketS3Client({ region: current.AWS_REGION, endpoint: current.GW_S3_ENDPOINT });
  const engine = new AthenaQueryEngine({
    athena: createAthenaClient({ region: current.AWS_REGION, endpoint: current.GW_ATHENA_ENDPOINT, workgroup: current.GW_ATHENA_COMPACTION_WORKGROUP }),
    s3,
    workgroup: current.GW_ATHENA_COMPACTION_WORKGROUP,
    database: current.GW_ATHENA_DATABASE,
    timeoutMs: current.GW_LOG_QUERY_TIMEOUT_MS,
    freshnessMs: current.GW_LOG_FRESHNESS_MS,
  });
  return compactRequestLogs({ engine, s3, dataBucket: current.GW_LOG_DATA_BUCKET, now, deadline, ...extra });
}
