import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * CI: lints the template `npm run synth` wrote (cdk.out/<stack>.template.json) with cfn-lint.
 *
 * The npm package `cfn-lint` (a devDependency) checks references, GetAtt attributes, intrinsic functions and
 * property names, but against a CloudFormation resource specification from 2019: every property AWS added since is
 * reported as "not a valid property". Exactly those (listed below, each a real, documented property) are set
 * aside; any other finding fails the step. When AWS's maintained linter (the Python `cfn-lint`, current spec) is
 * on the PATH it runs as well, and any error (exit-code bit 2) fails the step; its warnings are printed.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// The npm linter colours its report; built from a string so the escape character is not a regex literal.
const ANSI_COLOUR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

/** `<resource type>.<property>` the npm linter's 2019 spec does not know yet. */
const PROPERTIES_NEWER_THAN_NPM_SPEC = new Set([
  'AWS::Lambda::Function.Architectures',
  'AWS::Lambda::Function.LoggingConfig',
  'AWS::IAM::Role.Description',
  'AWS::DynamoDB::Table.DeletionProtectionEnabled',
  'AWS::S3::Bucket.OwnershipControls',
  'AWS::ApiGateway::Method.Integration.ResponseTransferMode',
  'AWS::Events::Rule.Target.RetryPolicy',
  // Scheduled functions' failed runs (issue #44): the rule target's dead-letter queue, SQS-managed encryption.
  'AWS::Events::Rule.Target.DeadLetterConfig',
  'AWS::SQS::Queue.SqsManagedSseEnabled',
  'AWS::SNS::Topic.ArchivePolicy',
  'AWS::WAFv2::WebACL.CustomResponseBodies',
  // Request logs (infra/cdk/constructs/request-logs.ts): Firehose's encryption, error prefix and Parquet conversion.
  'AWS::KinesisFirehose::DeliveryStream.DeliveryStreamEncryptionConfigurationInput',
  'AWS::KinesisFirehose::DeliveryStream.ExtendedS3DestinationConfiguration.ErrorOutputPrefix',
  'AWS::KinesisFirehose::DeliveryStream.ExtendedS3DestinationConfiguration.DataFormatConversionConfiguration',
  // Each row filed under its own day, several rows a record (issues #41, #44).
  'AWS::KinesisFirehose::DeliveryStream.ExtendedS3DestinationConfiguration.DynamicPartitioningConfiguration',
  // Stack-wide tags (the `tags` context key): CloudFormation has taken Tags on these types since after 2019.
  ...['AWS::IAM::Role', 'AWS::Logs::LogGroup', 'AWS::KinesisFirehose::DeliveryStream', 'AWS::Events::Rule', 'AWS::ApiGateway::RestApi', 'AWS::CloudWatch::Alarm', 'AWS::SNS::Topic'].map(
    (type) => `${type}.Tags`,
  ),
]);

/** Resource types newer than the npm linter's spec (it cannot check their properties; the Python linter does). */
const TYPES_NEWER_THAN_NPM_SPEC = new Set(['AWS::Athena::WorkGroup', 'AWS::WAFv2::WebACL', 'AWS::WAFv2::WebACLAssociation', 'AWS::Lambda::EventInvokeConfig']);

/**
 * The template the npm linter reads: a `Fn::GetAtt` of a resource whose type its spec lacks makes it stop at once
 * (NoSuchResourceType, no report at all), so such a GetAtt becomes a placeholder string in a copy; the Python linter
 * reads the template as synthesised.
 */
function npmLintableCopy(template: string): string {
  const parsed = JSON.parse(readFileSync(template, 'utf8')) as { Resources?: Record<string, { Type?: string }> };
  const types = new Map(Object.entries(parsed.Resources ?? {}).map(([id, resource]) => [id, resource.Type ?? '']));
  const newer = (value: unknown): boolean =>
    Array.isArray(value) && typeof value[0] === 'string' && TYPES_NEWER_THAN_NPM_SPEC.has(types.get(value[0]) ?? '');
  const copy = JSON.parse(JSON.stringify(parsed), (_key, value: unknown) =>
    value && typeof value === 'object' && !Array.isArray(value) && newer((value as Record<string, unknown>)['Fn::GetAtt']) ? 'placeholder-of-a-newer-type' : value,
  ) as unknown;
  const file = join(mkdtempSync(join(tmpdir(), 'gw-lint-template-')), 'template.json');
  writeFileSync(file, JSON.stringify(copy));
  return file;
}

function templates(): string[] {
  const out = join(root, 'cdk.out');
  if (!existsSync(out)) throw new Error('cdk.out does not exist: run `npm run synth` first');
  return readdirSync(out)
    .filter((name) => name.endsWith('.template.json'))
    .map((name) => join(out, name));
}

function npmLinterFindings(template: string): string[] {
  const result = spawnSync(process.execPath, [join(root, 'node_modules/cfn-lint/lib/index.js'), 'validate', npmLintableCopy(template)], { encoding: 'utf8' });
  const text = `${result.stdout}\n${result.stderr}`.replace(ANSI_COLOUR, '');
  const findings: string[] = [];
  const blocks = text.split(/\n(?=Resource: )/).filter((block) => block.startsWith('Resource: '));
  for (const block of blocks) {
    const resource = /^Resource: (.*)$/m.exec(block)?.[1] ?? '';
    const message = /^Message: (.*)$/m.exec(block)?.[1] ?? '';
    const property = /^(\S+) is not a valid property of (\S+)$/.exec(message);
    if (property && PROPERTIES_NEWER_THAN_NPM_SPEC.has(`${property[2]}.${property[1]}`)) continue;
    const type = /has an invalid Type of (\S+?)\.?$/.exec(message);
    if (type && TYPES_NEWER_THAN_NPM_SPEC.has(type[1])) continue;
    // CDK's bootstrap-version rule uses Fn::Not inside Rules, which CloudFormation accepts and the npm linter does not.
    if (resource.startsWith('Rules > CheckBootstrapVersion') && message.startsWith('Intrinsic function Fn::Not')) continue;
    findings.push(`${resource}: ${message}`);
  }
  if (result.status !== 0 && blocks.length === 0) findings.push(`cfn-lint (npm) failed to run: ${text.trim().slice(0, 500)}`);
  return findings;
}

/** The Python cfn-lint, when installed: undefined if absent, else its errors. */
function pythonLinterErrors(template: string): string[] | undefined {
  // Through python3, so node_modules/.bin/cfn-lint (the npm one, first on an npm script's PATH) is never taken for it.
  const program = "import sys; from cfnlint.runner import main; sys.argv = ['cfn-lint'] + sys.argv[1:]; main()";
  const result = spawnSync('python3', ['-c', program, '--format', 'parseable', template], { encoding: 'utf8' });
  if (result.error || /ModuleNotFoundError|No module named/.test(result.stderr)) return undefined;
  const lines = result.stdout.split('\n').filter(Boolean);
  for (const line of lines.filter((entry) => !/:E\d+:/.test(entry))) console.log(`  cfn-lint (python) note: ${line}`);
  const errors = lines.filter((entry) => /:E\d+:/.test(entry));
  if (((result.status ?? 0) & 2) !== 0 && errors.length === 0) errors.push(`exit ${result.status}: ${result.stderr.trim().slice(0, 500)}`);
  return errors;
}

let failed = false;
for (const template of templates()) {
  const findings = npmLinterFindings(template);
  for (const finding of findings) console.error(`  ✗ cfn-lint (npm): ${finding}`);
  const pythonErrors = pythonLinterErrors(template);
  for (const error of pythonErrors ?? []) console.error(`  ✗ cfn-lint (python): ${error}`);
  failed ||= findings.length > 0 || (pythonErrors?.length ?? 0) > 0;
  console.log(`lint-template: ${template.slice(root.length + 1)}: ${findings.length} npm cfn-lint finding(s)${pythonErrors ? `, ${pythonErrors.length} Python cfn-lint error(s)` : ' (Python cfn-lint not installed)'}`);
}
process.exit(failed ? 1 : 0);
