// First: before anything loads the AWS SDK (its Node-version notice is noise on a supported Node 20).
import '../infra/local/quiet-sdk-notice.js';
import { parseArgs } from 'node:util';
import { OUTPUT_KEYS } from '../infra/cdk/outputs.js';
import { describeStackOutputs, readOutputsFile, StackOutputsError, storeEnvironmentFrom, type StackOutputs } from '../infra/cdk/ops/stack-outputs.js';
import { RECONCILE_USAGE, reconcileCommand, ReconcileUsageError } from './reconcile-command.js';

/**
 * `npm run cli -- <command>`: operations on a deployed gw stack, with the AWS SDK's default credentials.
 *
 *   bootstrap          creates the first organisation, a workspace and an admin API key (printed once)
 *   keys create-admin  a new admin API key for the local gw's data directory (access lost? this recovers it)
 *   reconcile          analytics, request logs and budget charges of a workspace and period, compared
 */
const USAGE = `Usage: npm run cli -- bootstrap (--stack <name> [--region <region>] | --outputs-file <cdk-outputs.json> [--stack <name>])
                               [--name <organisation and workspace name>] [--json]

  --stack          the CloudFormation stack of gw (cdk.json's stackName, "gw" by default); its outputs are read
                   with DescribeStacks
  --region         the stack's region (default: AWS_REGION, AWS_DEFAULT_REGION or the profile's region)
  --outputs-file   read the outputs from the file \`npx cdk deploy --outputs-file <file>\` wrote instead
  --name           name of the first organisation and workspace (default: "default")
  --json           print {"organisation_id","workspace_id","api_key"} as JSON on stdout, nothing else

Set GW_BOOTSTRAP_API_KEY to make that exact key the admin key instead of generating one.

       npm run cli -- keys create-admin [--data-dir <dir>]

  Creates a new organisation-admin API key in the local gw's store (GW_DATA_DIR, default .data) and prints
  it once as \`export GW_API_KEY=…\`. Stop the local gw first: the embedded store is opened by one process.

${RECONCILE_USAGE}`;

class UsageError extends Error {}

interface BootstrapOptions {
  stack?: string;
  region?: string;
  outputsFile?: string;
  name: string;
  json: boolean;
}

function parseBootstrapArgs(args: string[]): BootstrapOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        stack: { type: 'string' },
        region: { type: 'string' },
        'outputs-file': { type: 'string' },
        name: { type: 'string', default: 'default' },
        json: { type: 'boolean', default: false },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (!values.stack && !values['outputs-file']) throw new UsageError('bootstrap needs --stack <name> or --outputs-file <file>');
  if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(values.name)) throw new UsageError('--name must be lower-case letters, digits and dashes (it is also the workspace slug)');
  return { stack: values.stack, region: values.region, outputsFile: values['outputs-file'], name: values.name, json: values.json };
}

async function bootstrap(options: BootstrapOptions): Promise<void> {
  const outputs: StackOutputs = options.outputsFile
    ? readOutputsFile(options.outputsFile, options.stack)
    : await describeStackOutputs(options.stack!, options.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION);
  // The shared store code reads its table names and region from settings, parsed on first use: set them first.
  Object.assign(process.env, storeEnvironmentFrom(outputs));
  const { bootstrapOrganisation } = await import('../shared/control-plane/bootstrap.js');
  const result = await bootstrapOrganisation(process.env.GW_BOOTSTRAP_API_KEY || undefined, options.name);

  if (options.json) {
    console.log(JSON.stringify({ organisation_id: result.organisationId, workspace_id: result.workspaceId, api_key: result.createdApiKey ?? null }));
    return;
  }
  console.log(`gw on ${outputs[OUTPUT_KEYS.gatewayBaseUrl] ?? '(no GatewayBaseUrl output)'}`);
  console.log(`  organisation: ${result.organisationId}`);
  console.log(`  workspace:    ${result.workspaceId}`);
  if (!result.createdApiKey) {
    console.log('\nThis stack was already bootstrapped, so no new key was created. Create further keys through the');
    console.log('control plane with an existing admin key (docs/deploy.md, "First key").');
    return;
  }
  const fromEnvironment = Boolean(process.env.GW_BOOTSTRAP_API_KEY);
  console.log(`  admin API key (shown once, store it now): ${fromEnvironment ? '(the key in GW_BOOTSTRAP_API_KEY)' : result.createdApiKey}`);
  console.log('\nTry it (with an OpenAI key in OPENAI_API_KEY):\n');
  console.log(
    `curl ${outputs[OUTPUT_KEYS.gatewayBaseUrl]}/chat/completions \\\n` +
      `  -H 'content-type: application/json' \\\n` +
      `  -H "x-gw-api-key: ${fromEnvironment ? '$GW_BOOTSTRAP_API_KEY' : result.createdApiKey}" \\\n` +
      `  -H 'x-gw-provider: openai' \\\n` +
      `  -H "authorization: Bearer $OPENAI_API_KEY" \\\n` +
      `  -d '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Say hello"}]}'`,
  );
}

/** A fresh admin key in the local store: the way back in when the key shown on first start is lost. */
async function createLocalAdminKey(args: string[]): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({ args, strict: true, allowPositionals: false, options: { 'data-dir': { type: 'string' } } }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const dataDir = values['data-dir'] ?? process.env.GW_DATA_DIR ?? '.data';
  const { startEmbeddedStore, ensureTables } = await import('../infra/local/embedded-store.js');
  const store = await startEmbeddedStore(dataDir).catch((error: unknown) => {
    throw new StackOutputsError(`could not open the local store in ${dataDir} (is gw still running? stop it first): ${(error as Error).message}`);
  });
  try {
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local', AWS_REGION: process.env.AWS_REGION ?? 'us-east-1', GW_DYNAMODB_ENDPOINT: store.endpoint });
    const { settings } = await import('../shared/settings.js');
    const { TABLES, tableName } = await import('../shared/store/table-definitions.js');
    await ensureTables(store.endpoint, settings().AWS_REGION, TABLES.map((definition) => ({ definition, name: tableName(settings(), definition) })));
    const { generateRawApiKey } = await import('../shared/auth/api-key-secrets.js');
    const { bootstrapOrganisation } = await import('../shared/control-plane/bootstrap.js');
    const result = await bootstrapOrganisation(generateRawApiKey());
    console.log(`New admin API key for workspace ${result.workspaceId} (shown once, store it now):\n`);
    console.log(`export GW_API_KEY=${result.createdApiKey}`);
  } finally {
    await store.close();
  }
}

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  try {
    if (command === 'keys') {
      const [subcommand, ...rest] = args;
      if (subcommand !== 'create-admin') throw new UsageError(`Unknown keys command '${subcommand ?? ''}' (try: keys create-admin)`);
      await createLocalAdminKey(rest);
      return 0;
    }
    if (command === 'reconcile') return await reconcileCommand(args);
    if (command === 'bootstrap') {
      await bootstrap(parseBootstrapArgs(args));
      return 0;
    }
    if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
      console.log(USAGE);
      return command === undefined ? 2 : 0;
    }
    throw new UsageError(`Unknown command '${command}'`);
  } catch (error) {
    if (error instanceof UsageError || error instanceof ReconcileUsageError) {
      console.error(`${error.message}\n\n${USAGE}`);
      return 2;
    }
    if (error instanceof StackOutputsError) {
      console.error(error.message);
      return 1;
    }
    // AWS errors (credentials, access denied, throttling) carry a useful name and message and never a secret.
    const { name, message } = error as Error;
    console.error(`${command} failed: ${name}: ${message}`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
