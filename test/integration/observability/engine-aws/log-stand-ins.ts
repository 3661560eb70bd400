import { AthenaClient } from '@aws-sdk/client-athena';
import { S3Client } from '@aws-sdk/client-s3';
import { AthenaQueryEngine } from '../../../../shared/observability/engine/aws/athena-engine.js';
import { CompactionStateReader } from '../../../../shared/observability/engine/aws/compaction-state.js';
import { memoryObjects, s3StandIn } from '../../../../shared/store/recording/stand-ins/s3-stand-in.js';
import { serveOnLoopback, type LoopbackServer } from '../../../../shared/store/recording/stand-ins/wire.js';
import { athenaStandIn, type AthenaStandIn } from '../../../aws-shaped/support/athena-stand-in.js';

export const DATA = 'gw-log-data';
export const RESULTS = 'gw-log-results';

/** The request-log side of the stack, served on loopback: the log data and results buckets, Athena with both workgroups. */
export interface LogStandIns {
  data: ReturnType<typeof memoryObjects>;
  results: ReturnType<typeof memoryObjects>;
  athena: AthenaStandIn;
  /** A read engine as the control plane builds one, reading compaction states afresh. */
  engine(): AthenaQueryEngine;
  close(): Promise<void>;
}

/**
 * Starts the stand-ins and sets the environment the stack gives the functions (settings are read once, on first use),
 * so code under test that builds its clients from settings reaches them too.
 */
export async function startLogStandIns(data = memoryObjects(), results = memoryObjects()): Promise<LogStandIns> {
  const athena = athenaStandIn({
    region: 'us-east-1',
    account: '123456789012',
    workgroup: 'gw-logs',
    database: 'gw_logs',
    dataBucket: DATA,
    outputLocation: `s3://${RESULTS}/results/`,
    otherWorkgroups: { 'gw-logs-compaction': `s3://${RESULTS}/compaction/` },
    buckets: { [DATA]: data, [RESULTS]: results },
    authorize: () => true,
  });
  const servers: LoopbackServer[] = [await serveOnLoopback(athena.handler), await serveOnLoopback(s3StandIn({ buckets: { [DATA]: data, [RESULTS]: results } }))];
  const [athenaUrl, s3Url] = servers.map((server) => server.url);
  Object.assign(process.env, { GW_ATHENA_ENDPOINT: athenaUrl, GW_S3_ENDPOINT: s3Url, GW_ATHENA_WORKGROUP: 'gw-logs', GW_ATHENA_COMPACTION_WORKGROUP: 'gw-logs-compaction', GW_LOG_DATA_BUCKET: DATA, GW_LOG_RESULTS_BUCKET: RESULTS });
  process.env.AWS_ACCESS_KEY_ID ??= 'test';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'test';
  const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
  return {
    data,
    results,
    athena,
    engine() {
      const s3 = new S3Client({ region: 'us-east-1', endpoint: s3Url, forcePathStyle: true, credentials });
      const client = new AthenaClient({ region: 'us-east-1', endpoint: athenaUrl, credentials });
      return new AthenaQueryEngine({ athena: client, s3, workgroup: 'gw-logs', database: 'gw_logs', timeoutMs: 30_000, freshnessMs: 0, pollDelaysMs: [20], compactionState: new CompactionStateReader(s3, DATA, 0) });
    },
    async close() {
      for (const server of servers) await server.close();
      await athena.close();
    },
  };
}
