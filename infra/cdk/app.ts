import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { readConfig } from './config.js';
import { GwStack } from './gw-stack.js';

/**
 * The CDK app (cdk.json: `node --import tsx infra/cdk/app.ts`). One stack, environment-agnostic: account and
 * region come from the deploying credentials, so `cdk synth` needs neither credentials nor network.
 */
// NodejsFunction runs the project's esbuild through `npx --no-install`; keep npm from asking the registry
// whether a newer npm exists, so synth stays offline.
process.env.npm_config_update_notifier ??= 'false';
const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const app = new App();
const config = readConfig((key) => app.node.tryGetContext(key));
new GwStack(app, config.stackName, {
  config,
  projectRoot,
  description: 'gw: serverless AI gateway (API Gateway + Lambda + DynamoDB)',
});
if (config.nag) Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
