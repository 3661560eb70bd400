import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTables, startEmbeddedStore, type EmbeddedStore } from '../../infra/local/embedded-store.js';
import { hashApiKey } from '../../shared/auth/api-key-secrets.js';
import { keys } from '../../shared/store/keys.js';
import { TABLES } from '../../shared/store/table-definitions.js';
import { PROJECT_ROOT } from './support/synth.js';

const REGION = 'eu-west-1';

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `npm run cli -- …` (scripts/cli.ts under tsx) as its own process, as an operator would. */
function runCli(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', join(PROJECT_ROOT, 'scripts', 'cli.ts'), ...args],
      {
        cwd: PROJECT_ROOT,
        env: {
          PATH: process.env.PATH,
          AWS_ACCESS_KEY_ID: 'local',
          AWS_SECRET_ACCESS_KEY: 'local',
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
          POWERTOOLS_LOG_LEVEL: 'SILENT',
          ...env,
        },
      },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Stack outputs for tables created under `prefix` in the embedded store. */
function outputsFor(prefix: string): Record<string, string> {
  return {
    ApiUrl: 'https://abc123.execute-api.eu-west-1.amazonaws.com/prod/',
    GatewayBaseUrl: 'https://abc123.execute-api.eu-west-1.amazonaws.com/prod/v1',
    Region: REGION,
    MainTableName: `${prefix}-main`,
    CacheTableName: `${prefix}-cache`,
    LogsTableName: `${prefix}-logs`,
  };
}

/**
 * A CloudFormation stand-in on loopback speaking the awsQuery protocol the SDK uses: DescribeStacks answers with
 * the stacks given, anything else with CloudFormation's "does not exist" error.
 */
function startCloudFormation(stacks: Record<string, Record<string, string>>): Promise<{ server: Server; url: string; requests: URLSearchParams[] }> {
  const requests: URLSearchParams[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      requests.push(form);
      const name = form.get('StackName') ?? '';
      const outputs = form.get('Action') === 'DescribeStacks' ? stacks[name] : undefined;
      response.setHeader('content-type', 'text/xml');
      if (!outputs) {
        response.statusCode = 400;
        response.end(
          `<ErrorResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><Error><Type>Sender</Type><Code>ValidationError</Code>` +
            `<Message>Stack with id ${name} does not exist</Message></Error><RequestId>r-2</RequestId></ErrorResponse>`,
        );
        return;
      }
      const members = Object.entries(outputs)
        .map(([key, value]) => `<member><OutputKey>${key}</OutputKey><OutputValue>${value}</OutputValue></member>`)
        .join('');
      response.end(
        `<DescribeStacksResponse xmlns="http://cloudformation.amazonaws.com/doc/2010-05-15/"><DescribeStacksResult><Stacks><member>` +
          `<StackName>${name}</StackName><StackId>arn:aws:cloudformation:${REGION}:123456789012:stack/${name}/1</StackId>` +
          `<CreationTime>2026-01-01T00:00:00Z</CreationTime><StackStatus>UPDATE_COMPLETE</StackStatus><Outputs>${members}</Outputs>` +
          `</member></Stacks></DescribeStacksResult><ResponseMetadata><RequestId>r-1</RequestId></ResponseMetadata></DescribeStacksResponse>`,
      );
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests })));
}

describe('npm run cli -- bootstrap', () => {
  let store: EmbeddedStore;
  let documents: DynamoDBDocumentClient;
  let workDir: string;
  let storeEnv: Record<string, string>;

  async function createTables(prefix: string): Promise<Record<string, string>> {
    const outputs = outputsFor(prefix);
    await ensureTables(store.endpoint, REGION, TABLES.map((definition) => ({ definition, name: `${prefix}-${definition.id}` })));
    return outputs;
  }

  function writeOutputsFile(name: string, content: unknown): string {
    const file = join(workDir, name);
    writeFileSync(file, JSON.stringify(content));
    return file;
  }

  async function adminKeyRecord(prefix: string, rawKey: string): Promise<Record<string, unknown> | undefined> {
    const result = await documents.send(new GetCommand({ TableName: `${prefix}-main`, Key: keys.apiKeyByHash(hashApiKey(rawKey)) }));
    return result.Item;
  }

  beforeAll(async () => {
    store = await startEmbeddedStore(':memory:');
    storeEnv = { GW_DYNAMODB_ENDPOINT: store.endpoint };
    documents = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: store.endpoint, region: REGION, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }));
    workDir = mkdtempSync(join(tmpdir(), 'gw-cli-'));
  });

  afterAll(async () => {
    documents.destroy();
    await store.close();
    rmSync(workDir, { recursive: true, force: true });
  });

  it('creates the organisation, workspace and an admin key from a CDK outputs file, and shows the key once', async () => {
    const outputs = await createTables('file');
    const file = writeOutputsFile('outputs.json', { gw: outputs });

    const first = await runCli(['bootstrap', '--outputs-file', file], storeEnv);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const key = /admin API key \(shown once, store it now\): (gwk_\S+)/.exec(first.stdout)?.[1];
    expect(key).toBeDefined();
    expect(first.stdout).toContain(`curl ${outputs.GatewayBaseUrl}/chat/completions`);
    expect(first.stdout).toMatch(/organisation: [0-9a-f-]{36}/);
    expect(await adminKeyRecord('file', key!)).toMatchObject({ kind: 'admin', status: 'active', key_hash: hashApiKey(key!) });

    const second = await runCli(['bootstrap', '--outputs-file', file], storeEnv);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('already bootstrapped, so no new key was created');
    expect(second.stdout).not.toMatch(/gwk_/);
    expect(/organisation: (\S+)/.exec(second.stdout)?.[1]).toBe(/organisation: (\S+)/.exec(first.stdout)?.[1]);
  });

  it('reads the stack outputs with CloudFormation DescribeStacks and prints JSON with --json', async () => {
    const outputs = await createTables('stack');
    const cloudFormation = await startCloudFormation({ 'gw-test': outputs });
    try {
      const run = await runCli(['bootstrap', '--stack', 'gw-test', '--region', REGION, '--json'], { ...storeEnv, AWS_ENDPOINT_URL_CLOUDFORMATION: cloudFormation.url });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const printed = JSON.parse(run.stdout) as { organisation_id: string; workspace_id: string; api_key: string };
      expect(printed).toEqual({ organisation_id: expect.any(String), workspace_id: expect.any(String), api_key: expect.stringMatching(/^gwk_/) });
      expect(await adminKeyRecord('stack', printed.api_key)).toMatchObject({ kind: 'admin', organisation_id: printed.organisation_id, workspace_id: printed.workspace_id });
      expect(cloudFormation.requests.map((form) => [form.get('Action'), form.get('StackName')])).toEqual([['DescribeStacks', 'gw-test']]);
    } finally {
      cloudFormation.server.close();
    }
  });

  it('makes GW_BOOTSTRAP_API_KEY the admin key without echoing it', async () => {
    const outputs = await createTables('env');
    const file = writeOutputsFile('env-outputs.json', { gw: outputs });
    const chosen = 'gwk_chosen_by_the_operator_0123456789';
    const run = await runCli(['bootstrap', '--outputs-file', file], { ...storeEnv, GW_BOOTSTRAP_API_KEY: chosen });
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain(chosen);
    expect(run.stdout).toContain('(the key in GW_BOOTSTRAP_API_KEY)');
    expect(await adminKeyRecord('env', chosen)).toMatchObject({ kind: 'admin' });
  });

  it('start-up noise: keys create-admin prints the key first, with no AWS SDK Node-version warning (none set in the environment)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gw-cli-quiet-'));
    try {
      const run = await new Promise<CliRun>((resolve) => {
        execFile(
          process.execPath,
          ['--import', 'tsx', join(PROJECT_ROOT, 'scripts', 'cli.ts'), 'keys', 'create-admin', '--data-dir', dataDir],
          { cwd: PROJECT_ROOT, env: { PATH: process.env.PATH, POWERTOOLS_LOG_LEVEL: 'SILENT' } },
          (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
        );
      });
      expect(run.code).toBe(0);
      expect(run.stderr).not.toContain('NodeVersionSupportWarning');
      expect(run.stderr).toBe('');
      expect(run.stdout).toMatch(/^New admin API key for workspace /);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('answers bad usage with the usage text and exit code 2', async () => {
    const usages = [[], ['deploy'], ['bootstrap'], ['bootstrap', '--stack', 'gw', '--colour', 'blue'], ['bootstrap', '--stack', 'gw', '--name', 'Not A Slug']];
    const runs = await Promise.all(usages.map((args) => runCli(args)));
    usages.forEach((args, index) => {
      expect(runs[index].code, args.join(' ')).toBe(2);
      expect(`${runs[index].stdout}${runs[index].stderr}`, args.join(' ')).toContain('Usage: npm run cli -- bootstrap');
    });
    expect(runs[1].stderr).toMatch(/^Unknown command 'deploy'/);
    expect(runs[2].stderr).toMatch(/^bootstrap needs --stack <name> or --outputs-file <file>/);
    // Five CLI processes at once, each loading tsx: room for a busy CI machine (nothing here is timed).
  }, 120_000);

  it('says which stack does not exist, and where', async () => {
    const cloudFormation = await startCloudFormation({});
    try {
      const run = await runCli(['bootstrap', '--stack', 'nope', '--region', REGION], { AWS_ENDPOINT_URL_CLOUDFORMATION: cloudFormation.url });
      expect(run.code).toBe(1);
      expect(run.stderr.trim()).toBe(`Stack nope does not exist in ${REGION}: check --stack and --region`);
    } finally {
      cloudFormation.server.close();
    }
  });

  it('refuses outputs that are not a gw stack, or an ambiguous outputs file, naming what is missing', async () => {
    const notGw = writeOutputsFile('other.json', { other: { BucketName: 'b' } });
    const two = writeOutputsFile('two.json', { a: outputsFor('a'), b: outputsFor('b') });
    const [missing, ambiguous, unreadable] = await Promise.all([notGw, two, join(workDir, 'absent.json')].map((file) => runCli(['bootstrap', '--outputs-file', file])));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('The stack outputs lack MainTableName, CacheTableName, LogsTableName, Region');

    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toContain('holds several stacks (a, b): choose one with --stack');

    expect(unreadable.code).toBe(1);
    expect(unreadable.stderr).toMatch(/^Could not read .*absent\.json/);
    // Three CLI processes at once, each loading tsx: room for a busy CI machine (nothing here is timed).
  }, 60_000);
});
