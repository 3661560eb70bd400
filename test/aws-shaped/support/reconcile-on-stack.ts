import { AthenaClient } from '@aws-sdk/client-athena';
import { S3Client } from '@aws-sdk/client-s3';
import type { ReconcileDependencies } from '../../../shared/gateway/enforcement/reconcile.js';
import { defaultLimitSources } from '../../../shared/gateway/enforcement/reconcile-limits.js';
import { AthenaQueryEngine } from '../../../shared/observability/engine/aws/athena-engine.js';
import { CompactionStateReader } from '../../../shared/observability/engine/aws/compaction-state.js';
import { WorkspaceBudgetRepository } from '../../../shared/store/workspace-budget-repository.js';
import { WorkspaceRepository } from '../../../shared/store/workspace-repository.js';
import { FUNCTION_SECRET_ACCESS_KEY, type DeployedStack } from './deployed-stack.js';

/**
 * What `npm run cli -- reconcile --stack …` runs with, against the deployed stack's stand-ins: the Athena engine of
 * the read APIs (the stack's workgroup and database, the compaction states of its data bucket, so each day is read
 * from exactly one side) signing as the control plane does (its grants are the read APIs'), and the store directly,
 * as the operator. The same `reconcile` code as locally; only the engine differs.
 */
export function reconcileOnStack(stack: DeployedStack): ReconcileDependencies {
  const { logs } = stack;
  const credentials = { accessKeyId: stack.accessKeyOf('control-plane'), secretAccessKey: FUNCTION_SECRET_ACCESS_KEY, sessionToken: 'aws-shaped-session' };
  const athena = new AthenaClient({ region: logs.region, endpoint: stack.standIns.athenaUrl, credentials });
  const s3 = new S3Client({ region: logs.region, endpoint: stack.standIns.s3Url, forcePathStyle: true, credentials });
  const engine = new AthenaQueryEngine({
    athena,
    s3,
    compactionState: new CompactionStateReader(s3, logs.dataBucket, 0),
    workgroup: logs.workgroup,
    database: logs.database,
    timeoutMs: 60_000,
    freshnessMs: 0,
    pollDelaysMs: [20, 50, 100],
  });
  return { engine: async () => engine, workspaces: new WorkspaceRepository(), budgets: new WorkspaceBudgetRepository(), limits: defaultLimitSources(), now: Date.now };
}
