import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App } from 'aws-cdk-lib';
import { readConfig } from '../infra/cdk/config.js';
import { FUNCTION_TABLE } from '../infra/cdk/function-table.js';
import { GRANT_ALLOWANCES } from '../infra/cdk/grant-allowances.js';
import { GwStack } from '../infra/cdk/gw-stack.js';
import { checkGrants, type RecordedOperationLine, type TemplateJson } from '../infra/cdk/ops/grant-check.js';

/**
 * `npm test` runs this after `vitest run`: every AWS operation the tests recorded a function issuing
 * (.test-results/aws-ops/, see shared/store/recording/) must be allowed by that function's role in the stack
 * `cdk synth` builds, and, after a complete passing run, every granted action must have been used by some test or
 * be listed with its reason in infra/cdk/grant-allowances.ts. Failures name the grant to add or remove.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const directory = resolve(root, process.env.GW_RECORD_AWS_OPERATIONS_DIR ?? '.test-results/aws-ops');

function readRecordings(): { operations: RecordedOperationLine[]; complete: boolean } {
  if (!existsSync(join(directory, 'run.json'))) {
    console.error(`check-grants: no test run recorded in ${directory}; run \`vitest run\` first (npm test does both).`);
    process.exit(1);
  }
  const run = JSON.parse(readFileSync(join(directory, 'run.json'), 'utf8')) as { complete: boolean; filesRun: number; filesTotal: number };
  const operations = readdirSync(directory)
    .filter((name) => name.endsWith('.jsonl'))
    .flatMap((name) => readFileSync(join(directory, name), 'utf8').split('\n').filter(Boolean))
    .map((line) => JSON.parse(line) as RecordedOperationLine);
  if (!run.complete) console.log(`check-grants: ${run.filesRun} of ${run.filesTotal} test files ran (or some failed): checking only that every recorded operation is granted.`);
  return { operations, complete: run.complete };
}

/** The stack as `cdk synth` builds it from cdk.json, with stand-in bundles (only the IAM policies matter here). */
function synthesisedTemplate(): TemplateJson {
  process.env.npm_config_update_notifier ??= 'false';
  const context = (JSON.parse(readFileSync(join(root, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> }).context;
  // Grants that only exist under a setting (whenSettings) are exercised by tests that switch the setting on, so
  // the stack checked against the recordings has every such setting on.
  const conditional = Object.fromEntries(FUNCTION_TABLE.flatMap((spec) => (spec.tables ?? []).flatMap((grant) => grant.whenSettings ?? [])).map((name) => [name, 'on']));
  const settings = { ...(context.settings as Record<string, string> | undefined), ...conditional };
  const app = new App({ builtinCloudFormationValidation: false, context: { ...context, settings, nag: false, prebuiltBundles: join(root, 'test/infra/fixtures/bundles') } });
  const config = readConfig((key) => app.node.tryGetContext(key));
  const stack = new GwStack(app, config.stackName, { config, projectRoot: root });
  return app.synth().getStackByName(stack.stackName).template as TemplateJson;
}

const { operations, complete } = readRecordings();
const result = checkGrants(synthesisedTemplate(), operations, GRANT_ALLOWANCES, { checkUnused: complete });
const attributed = operations.length - result.unattributed;
console.log(`check-grants: ${attributed} distinct operations recorded by function (${result.unattributed} outside any function, not checked).`);
const problems = [...result.missing, ...result.unused, ...(complete ? result.staleAllowances : [])];
for (const problem of problems) console.error(`  ✗ ${problem}`);
if (problems.length > 0) {
  console.error(`check-grants: ${problems.length} problem(s) between the recorded AWS operations and the synthesised grants.`);
  process.exit(1);
}
console.log('check-grants: every recorded operation is granted' + (complete ? ', and every grant was used or is allowed with a reason.' : '.'));
