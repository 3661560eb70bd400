import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { buildFunctions, copyConsoleInto } from '../../scripts/build.js';
import { ensureConsoleBuilt } from '../../scripts/build-console.js';
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
// What deploys is what `npm run build` builds and the bundle test measures: the same scripts/build.ts (esbuild's
// API, with its plugins and code splitting, which NodejsFunction's esbuild command line cannot express). Without
// `-c prebuiltBundles=dist` the app builds the functions now, into a folder the synth stages and then removes.
let builtHere: string | undefined;
if (!app.node.tryGetContext('prebuiltBundles')) {
  builtHere = mkdtempSync(join(tmpdir(), 'gw-synth-bundles-'));
  // Source maps only where the stack has Node read them (`sourceMaps`, on in development by default).
  const early = readConfig((key) => app.node.tryGetContext(key));
  await buildFunctions(builtHere, undefined, process.cwd(), { sourceMaps: early.sourceMaps ?? early.environment !== 'production' });
  // The console ships with the control-plane function: built now when missing (a fresh clone's first deploy).
  await ensureConsoleBuilt(join(projectRoot, 'dist', 'console'));
  copyConsoleInto(builtHere, join(projectRoot, 'dist', 'console'));
  app.node.setContext('prebuiltBundles', builtHere);
}
const config = readConfig((key) => app.node.tryGetContext(key));
new GwStack(app, config.stackName, {
  config,
  projectRoot,
  description: 'gw: serverless AI gateway (API Gateway + Lambda + DynamoDB)',
});
if (config.nag) Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
if (builtHere) rmSync(builtHere, { recursive: true, force: true });
