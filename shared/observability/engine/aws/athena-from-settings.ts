import { settings } from '../../../settings.js';
import { AthenaQueryEngine } from './athena-engine.js';
import { createAthenaClient, createResultsS3Client } from './clients.js';
import { CompactionStateReader } from './compaction-state.js';

/** The Athena engine from the settings the stack gives each function (loaded on first query: see index.ts). */
export function createAthenaEngineFromSettings(): AthenaQueryEngine {
  const current = settings();
  const s3 = createResultsS3Client({ region: current.AWS_REGION, endpoint: current.GW_S3_ENDPOINT });
  return new AthenaQueryEngine({
    athena: createAthenaClient({ region: current.AWS_REGION, endpoint: current.GW_ATHENA_ENDPOINT, workgroup: current.GW_ATHENA_WORKGROUP }),
    s3,
    // Reads list the data bucket's compaction states (s3:ListBucket on it, which the control plane already has).
    compactionState: current.GW_LOG_DATA_BUCKET ? new CompactionStateReader(s3, current.GW_LOG_DATA_BUCKET) : undefined,
    workgroup: current.GW_ATHENA_WORKGROUP,
    database: current.GW_ATHENA_DATABASE,
    timeoutMs: current.GW_LOG_QUERY_TIMEOUT_MS,
    freshnessMs: current.GW_LOG_FRESHNESS_MS,
  });
}
