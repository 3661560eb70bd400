import { parseArgs } from 'node:util';
import { describeStackOutputs, readOutputsFile, StackOutputsError, storeEnvironmentFrom } from '../infra/cdk/ops/stack-outputs.js';

export const RECONCILE_USAGE = `       npm run cli -- reconcile --workspace <id> --from <ISO time> [--to <ISO time>] [--json]
                               [--data-dir <dir> | --stack <name> [--region <region>] | --outputs-file <file>]

  For one workspace and period: analytics' cost and token totals against the sum of the logged requests, and
  the charges of the workspace budget and of every cost or tokens limit (usage limits, tokens rate limits, a
  workspace provider's budget and tokens limits) against what those requests used (docs/enforcement.md,
  "Reconciliation").
  Prints every difference; exits 3 when there is one. --to defaults to now. Locally it opens the data
  directory's store and request-log database (GW_DATA_DIR, default .data): stop gw first. With --stack or
  --outputs-file it reads the stack's tables and Athena (GW_LOG_ENGINE=aws; the Athena settings from the
  environment, as the control plane has them).`;

export class ReconcileUsageError extends Error {}

interface ReconcileOptions {
  workspace: string;
  from: string;
  to?: string;
  json: boolean;
  dataDir?: string;
  stack?: string;
  region?: string;
  outputsFile?: string;
}

function parseReconcileArgs(args: string[]): ReconcileOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        workspace: { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
        json: { type: 'boolean', default: false },
        'data-dir': { type: 'string' },
        stack: { type: 'string' },
        region: { type: 'string' },
        'outputs-file': { type: 'string' },
      },
    }));
  } catch (error) {
    throw new ReconcileUsageError((error as Error).message);
  }
  if (!values.workspace) throw new ReconcileUsageError('reconcile needs --workspace <id>');
  if (!values.from || Number.isNaN(Date.parse(values.from))) throw new ReconcileUsageError('reconcile needs --from <ISO time>');
  if (values.to !== undefined && Number.isNaN(Date.parse(values.to))) throw new ReconcileUsageError('--to must be an ISO time');
  return { workspace: values.workspace, from: values.from, to: values.to, json: values.json, dataDir: values['data-dir'], stack: values.stack, region: values.region, outputsFile: values['outputs-file'] };
}

/** `npm run cli -- reconcile …`: returns the exit code (0 agree, 3 differences). */
export async function reconcileCommand(args: string[]): Promise<number> {
  const options = parseReconcileArgs(args);
  const aws = options.stack !== undefined || options.outputsFile !== undefined;
  let closeStore: (() => Promise<void>) | undefined;
  if (aws) {
    const outputs = options.outputsFile ? readOutputsFile(options.outputsFile, options.stack) : await describeStackOutputs(options.stack!, options.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION);
    Object.assign(process.env, storeEnvironmentFrom(outputs), { GW_LOG_ENGINE: 'aws' });
  } else {
    const dataDir = options.dataDir ?? process.env.GW_DATA_DIR ?? '.data';
    const { join } = await import('node:path');
    const { startEmbeddedStore } = await import('../infra/local/embedded-store.js');
    const store = await startEmbeddedStore(dataDir).catch((error: unknown) => {
      throw new StackOutputsError(`could not open the local store in ${dataDir} (is gw still running? stop it first): ${(error as Error).message}`);
    });
    closeStore = () => store.close();
    Object.assign(process.env, {
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_REGION: process.env.AWS_REGION ?? 'us-east-1',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      GW_DYNAMODB_ENDPOINT: store.endpoint,
      GW_LOG_ENGINE: 'duckdb',
      GW_LOG_DUCKDB_PATH: join(dataDir, 'logs.duckdb'),
    });
  }
  try {
    const { reconcile, formatReconcileReport } = await import('../shared/gateway/enforcement/reconcile.js');
    const report = await reconcile({ workspaceId: options.workspace, from: options.from, to: options.to });
    console.log(options.json ? JSON.stringify(report) : formatReconcileReport(report));
    return report.differences.length === 0 ? 0 : 3;
  } finally {
    const { closeLogEngines } = await import('../shared/observability/engine/select.js');
    await closeLogEngines();
    await closeStore?.();
  }
}
