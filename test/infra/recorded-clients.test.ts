import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { DescribeSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { FirehoseClient, PutRecordBatchCommand } from '@aws-sdk/client-firehose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedOperationLine, TemplateJson } from '../../infra/cdk/ops/grant-check.js';

/**
 * Every AWS SDK client gw builds goes through one hook (`recordedClient`, shared/store/recording/), and while the
 * tests record, the blob and secret stores are the AWS ones (real S3 and Secrets Manager clients) against loopback
 * stand-ins: so an S3 or Secrets Manager call the code starts making is recorded as what it is, and the grant check
 * fails on it when the function's role does not allow it. (Before, hand-written stand-ins recorded only the calls
 * they knew of: an ungranted ListObjectsV2 or DescribeSecret passed.)
 *
 * This file records into a folder of its own (not the suite's), so the ungranted calls it makes on purpose do not
 * fail `npm test`'s grant check; the recorder reads the folder when it is loaded (the stack's modules load it too), hence the dynamic imports.
 */
const recordDir = mkdtempSync(join(tmpdir(), 'gw-recorded-clients-'));
const blobDir = mkdtempSync(join(tmpdir(), 'gw-recorded-blobs-'));
const secretDir = mkdtempSync(join(tmpdir(), 'gw-recorded-secrets-'));
process.env.GW_RECORD_AWS_OPERATIONS_DIR = recordDir;
process.env.GW_BLOB_DIR = blobDir;
process.env.GW_SECRET_STORE = 'local-file';
process.env.GW_LOCAL_SECRET_DIR = secretDir;
delete process.env.GW_BLOB_BUCKET;

type Recorder = typeof import('../../shared/store/recording/aws-operation-recorder.js');
type Hook = typeof import('../../shared/store/recording/sdk-recording-middleware.js');
type StandIns = typeof import('../../shared/store/recording/stand-ins/wire.js');
let recorder: Recorder;
let hook: Hook;
let wire: StandIns;
let template: TemplateJson;
let checkGrants: typeof import('../../infra/cdk/ops/grant-check.js').checkGrants;
const servers: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  recorder = await import('../../shared/store/recording/aws-operation-recorder.js');
  hook = await import('../../shared/store/recording/sdk-recording-middleware.js');
  wire = await import('../../shared/store/recording/stand-ins/wire.js');
  ({ checkGrants } = await import('../../infra/cdk/ops/grant-check.js'));
  const { synthGwStack, tableWithScheduledFixtures } = await import('./support/synth.js');
  template = synthGwStack({ functions: tableWithScheduledFixtures() }).template.toJSON() as TemplateJson;
});
afterAll(async () => {
  for (const server of servers) await server.close();
  for (const directory of [recordDir, blobDir, secretDir]) rmSync(directory, { recursive: true, force: true });
});

function recordedLines(): RecordedOperationLine[] {
  return readdirSync(recordDir)
    .filter((name) => name.endsWith('.jsonl'))
    .flatMap((name) => readFileSync(join(recordDir, name), 'utf8').split('\n').filter(Boolean))
    .map((line) => JSON.parse(line) as RecordedOperationLine);
}

const missingGrants = () => checkGrants(template, recordedLines(), [], { checkUnused: false }).missing;

describe('AWS clients under the grant check', () => {
  it('records the blob and secret stores\' calls from their real SDK clients, including the ListBucket a read needs', async () => {
    const { blobStore } = await import('../../shared/store/blobs/blob-store-factory.js');
    const { secretStore } = await import('../../shared/store/secrets/secret-store-factory.js');
    // The gateway stores a log body; the control plane reads it back (and a body that is gone).
    await recorder.runAsFunction('gateway', () => blobStore().put('logs/ws_1/log_1/response.json', '{"a":1}\n'));
    await recorder.runAsFunction('control-plane', async () => {
      expect((await blobStore().get('logs/ws_1/log_1/response.json'))?.toString()).toBe('{"a":1}\n');
      expect(await blobStore().get('logs/ws_1/gone.json')).toBeUndefined();
      await secretStore().put('virtual-keys/ws_1/vk_1', 'sk-secret');
      expect(await secretStore().get('virtual-keys/ws_1/vk_1')).toBe('sk-secret');
    });
    const lines = recordedLines();
    expect(lines).toEqual(
      expect.arrayContaining([
        { fn: 'gateway', service: 's3', action: 'PutObject', resource: 'bucket/blobs/logs/ws_1/log_1/response.json' },
        { fn: 'control-plane', service: 's3', action: 'GetObject', resource: 'bucket/blobs/logs/ws_1/gone.json' },
        { fn: 'control-plane', service: 's3', action: 'ListBucket', resource: 'bucket/blobs' },
        { fn: 'control-plane', service: 'secretsmanager', action: 'CreateSecret', resource: 'secret/gw/virtual-keys/ws_1/vk_1' },
        { fn: 'control-plane', service: 'secretsmanager', action: 'GetSecretValue', resource: 'secret/gw/virtual-keys/ws_1/vk_1' },
      ]),
    );
    // The stack grants exactly these (ListBucket included, so a missing key is 404 and not 403).
    expect(missingGrants()).toEqual([]);
  });

  it('fails the check on a call the function\'s role does not allow, whichever client sends it', async () => {
    const { s3StandIn, memoryObjects } = await import('../../shared/store/recording/stand-ins/s3-stand-in.js');
    const { secretsManagerStandIn, memorySecrets } = await import('../../shared/store/recording/stand-ins/secrets-manager-stand-in.js');
    const { BLOB_STAND_IN_BUCKET } = await import('../../shared/store/recording/recorded-operations.js');
    const s3Server = await wire.serveOnLoopback(s3StandIn({ buckets: { [BLOB_STAND_IN_BUCKET]: memoryObjects() } }));
    const secretsServer = await wire.serveOnLoopback(secretsManagerStandIn({ backing: memorySecrets() }));
    servers.push(s3Server, secretsServer);
    const s3 = hook.recordedClient(new S3Client({ region: 'us-east-1', endpoint: s3Server.url, forcePathStyle: true }), 's3');
    const secrets = hook.recordedClient(new SecretsManagerClient({ region: 'us-east-1', endpoint: secretsServer.url }), 'secretsmanager');
    const firehose = hook.recordedClient(new FirehoseClient({ region: 'us-east-1', endpoint: secretsServer.url, maxAttempts: 1 }), 'firehose');

    // A scheduled function listing the bucket, the gateway describing a secret (it may only read values) and putting
    // records into a delivery stream it has no grant for: each is a new call no statement allows.
    await recorder.runAsFunction('expire-api-keys', () => s3.send(new ListObjectsV2Command({ Bucket: BLOB_STAND_IN_BUCKET, Prefix: 'logs/' })));
    await recorder.runAsFunction('gateway', async () => {
      await secrets.send(new DescribeSecretCommand({ SecretId: 'gw/virtual-keys/ws_1/vk_1' })).catch((error: Error) => expect(error.name).toBe('ResourceNotFoundException'));
      await firehose.send(new PutRecordBatchCommand({ DeliveryStreamName: 'gw-request-logs', Records: [{ Data: Buffer.from('{}') }] })).catch(() => undefined);
    });

    expect(missingGrants()).toEqual([
      "'expire-api-keys' issues s3:ListBucket on bucket/blobs, which its role does not allow: give 'expire-api-keys' blobs: 'read-write' (or add s3:ListBucket to BLOB_ACTIONS in infra/cdk/constructs/access-grants.ts)",
      "'gateway' issues firehose:PutRecordBatch on deliverystream/gw-request-logs, which its role does not allow: give 'gateway' requestLogs: 'write' in infra/cdk/function-table.ts (or grant it in infra/cdk/constructs/request-logs.ts)",
      "'gateway' issues secretsmanager:DescribeSecret on secret/gw/virtual-keys/ws_1/vk_1, which its role does not allow: give 'gateway' secrets: 'manage' (or add DescribeSecret to SECRET_ACTIONS in infra/cdk/constructs/access-grants.ts)",
    ]);
  });
});
