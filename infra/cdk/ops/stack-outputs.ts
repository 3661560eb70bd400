import { readFileSync } from 'node:fs';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { OUTPUT_KEYS, TABLE_OUTPUTS } from '../outputs.js';

/** A deployed gw stack's outputs (OutputKey → OutputValue), as the ops CLI needs them. */
export type StackOutputs = Record<string, string>;

export class StackOutputsError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = 'StackOutputsError';
  }
}

/** Reads the outputs of a deployed stack with CloudFormation DescribeStacks (default credential chain). */
export async function describeStackOutputs(stackName: string, region?: string): Promise<StackOutputs> {
  const client = new CloudFormationClient({ region });
  try {
    const { Stacks } = await client.send(new DescribeStacksCommand({ StackName: stackName }));
    const stack = Stacks?.[0];
    if (!stack) throw new StackOutputsError(`Stack ${stackName} was not found`);
    if (!isUsable(stack.StackStatus)) {
      throw new StackOutputsError(`Stack ${stackName} is ${stack.StackStatus}: deploy it first (npx cdk deploy)`);
    }
    return Object.fromEntries((stack.Outputs ?? []).flatMap((output) => (output.OutputKey && output.OutputValue !== undefined ? [[output.OutputKey, output.OutputValue]] : [])));
  } catch (error) {
    if (error instanceof StackOutputsError) throw error;
    const name = (error as { name?: string }).name;
    const message = (error as Error).message ?? String(error);
    if (name === 'ValidationError' && /does not exist/.test(message)) {
      throw new StackOutputsError(`Stack ${stackName} does not exist in ${await client.config.region()}: check --stack and --region`, { cause: error });
    }
    throw new StackOutputsError(`Could not read the outputs of stack ${stackName}: ${message}`, { cause: error });
  } finally {
    client.destroy();
  }
}

/** Created, or updated at least once (an update that rolled back leaves the previous, working stack). */
function isUsable(status: string | undefined): boolean {
  return status === 'CREATE_COMPLETE' || Boolean(status?.startsWith('UPDATE_')) || Boolean(status?.startsWith('IMPORT_'));
}

/** Reads outputs from the file `cdk deploy --outputs-file <file>` writes: `{ "<stack>": { "<key>": "<value>" } }`. */
export function readOutputsFile(path: string, stackName?: string): StackOutputs {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new StackOutputsError(`Could not read ${path}: ${(error as Error).message}`, { cause: error });
  }
  if (!parsed || typeof parsed !== 'object') throw new StackOutputsError(`${path} is not a CDK outputs file`);
  const stacks = parsed as Record<string, unknown>;
  const names = Object.keys(stacks);
  const chosen = stackName ?? (names.length === 1 ? names[0] : undefined);
  if (!chosen) throw new StackOutputsError(`${path} holds several stacks (${names.join(', ')}): choose one with --stack`);
  const outputs = stacks[chosen];
  if (!outputs || typeof outputs !== 'object') throw new StackOutputsError(`${path} has no outputs for stack ${chosen}`);
  return Object.fromEntries(Object.entries(outputs as Record<string, unknown>).map(([key, value]) => [key, String(value)]));
}

/** The environment the shared store code reads (GW_TABLE_*, AWS_REGION) for a deployed stack. */
export function storeEnvironmentFrom(outputs: StackOutputs): Record<string, string> {
  const required = [...TABLE_OUTPUTS.map((output) => output.outputKey), OUTPUT_KEYS.region];
  const missing = required.filter((key) => !outputs[key]);
  if (missing.length) throw new StackOutputsError(`The stack outputs lack ${missing.join(', ')}: is this a gw stack, deployed with this version?`);
  const environment: Record<string, string> = { AWS_REGION: outputs[OUTPUT_KEYS.region] };
  for (const { outputKey, setting } of TABLE_OUTPUTS) environment[setting] = outputs[outputKey];
  return environment;
}
