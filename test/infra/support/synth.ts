import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Annotations, Template } from 'aws-cdk-lib/assertions';
import { readConfig } from '../../../infra/cdk/config.js';
import { FUNCTION_TABLE, type FunctionSpec } from '../../../infra/cdk/function-table.js';
import { GwStack, type GwStackProps } from '../../../infra/cdk/gw-stack.js';

export const PROJECT_ROOT = join(import.meta.dirname, '..', '..', '..');
export const FIXTURES = join(import.meta.dirname, '..', 'fixtures');

/** The context `cdk synth` uses (cdk.json), so the tests assert on the stack that is deployed. */
export function cdkJsonContext(): Record<string, unknown> {
  return (JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> }).context;
}

/** The function table with the scheduled functions' handlers replaced by the fixture handler. */
export function tableWithScheduledFixtures(): FunctionSpec[] {
  return FUNCTION_TABLE.map((spec) => (spec.scheduleMinutes || spec.scheduleDaily ? { ...spec, entry: join(FIXTURES, 'scheduled-handler.ts') } : spec));
}

export interface SynthOptions {
  context?: Record<string, unknown>;
  functions?: readonly FunctionSpec[];
  requestLogColumns?: GwStackProps['requestLogColumns'];
  /** Also read the synth's annotations (warnings, errors) while its assembly folder still exists. */
  annotations?: boolean;
}

/**
 * Synthesizes the gw stack with cdk.json's context plus overrides. The functions' code comes from the
 * stand-in bundles under fixtures/bundles (the `prebuiltBundles` option), so no esbuild run or hashing of the
 * repository slows the assertions down; the bundles themselves are tested in bundles.test.ts.
 */
export function synthGwStack(options: SynthOptions = {}): { app: App; stack: GwStack; template: Template; annotations?: Annotations } {
  // CloudFormation's schema validation (~6 s per synth) runs in `npm run synth`; the assertions here do not need it.
  // An App without an outdir synthesizes into a new cdk.out* folder of the temporary folder and never removes it
  // (one per synth: hundreds per run). The template is read in memory; the folder goes as soon as it is.
  const outdir = mkdtempSync(join(tmpdir(), 'cdk.out'));
  try {
    const app = new App({
      outdir,
      builtinCloudFormationValidation: false,
      context: { ...cdkJsonContext(), prebuiltBundles: join(FIXTURES, 'bundles'), ...options.context },
    });
    const config = readConfig((key) => app.node.tryGetContext(key));
    const stack = new GwStack(app, config.stackName, { config, projectRoot: PROJECT_ROOT, functions: options.functions, requestLogColumns: options.requestLogColumns });
    const template = Template.fromStack(stack);
    return { app, stack, template, annotations: options.annotations ? Annotations.fromStack(stack) : undefined };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}
