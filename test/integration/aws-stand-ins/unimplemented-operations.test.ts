import { AthenaClient, ListWorkGroupsCommand, GetWorkGroupCommand } from '@aws-sdk/client-athena';
import { DescribeDeliveryStreamCommand, FirehoseClient } from '@aws-sdk/client-firehose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryObjects } from '../../../shared/store/recording/stand-ins/s3-stand-in.js';
import { serveOnLoopback, type LoopbackServer } from '../../../shared/store/recording/stand-ins/wire.js';
import { athenaStandIn } from '../../aws-shaped/support/athena-stand-in.js';
import { firehoseStandIn } from '../../aws-shaped/support/firehose-stand-in.js';
import { templateAuthorizer, type Statement } from '../../support/iam-policy.js';

/**
 * The offline AWS checks deny exactly what the roles deny: the JSON-protocol stand-ins (Firehose, Athena) authorise
 * every operation against the caller's statements before anything else, the ones they do not implement included, so
 * an ungranted new call (a `firehose:DescribeDeliveryStream` whose error the code swallows) is a recorded denial
 * that fails the suite, not an UnknownOperationException. Class: stand-ins answering before the IAM check.
 */
const REGION = 'us-east-1';
const ACCOUNT = '123456789012';
const STREAM_ARN = `arn:aws:firehose:${REGION}:${ACCOUNT}:deliverystream/gw-requests`;
const WORKGROUP_ARN = `arn:aws:athena:${REGION}:${ACCOUNT}:workgroup/gw`;
// The writer may only put records; the reader may only run queries: the grants the stack gives them.
const statements = new Map<string, Statement[]>([
  ['writer', [{ actions: ['firehose:PutRecordBatch'], resources: [STREAM_ARN] }]],
  ['reader', [{ actions: ['athena:StartQueryExecution', 'athena:GetQueryExecution', 'athena:GetWorkGroup'], resources: [WORKGROUP_ARN] }]],
]);
const authorize = templateAuthorizer(statements, (key) => key);
const servers: LoopbackServer[] = [];
let firehoseUrl: string;
let athenaUrl: string;
let closeAthena: (() => Promise<void>) | undefined;

beforeAll(async () => {
  const firehose = firehoseStandIn({ region: REGION, account: ACCOUNT, streams: ['gw-requests'], authorize });
  const athena = athenaStandIn({
    region: REGION,
    account: ACCOUNT,
    workgroup: 'gw',
    database: 'gw',
    dataBucket: 'data',
    outputLocation: 's3://results/results/',
    buckets: { data: memoryObjects(), results: memoryObjects() },
    authorize,
  });
  closeAthena = () => athena.close();
  servers.push(await serveOnLoopback(firehose.handler), await serveOnLoopback(athena.handler));
  [firehoseUrl, athenaUrl] = servers.map((server) => server.url);
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  // The Athena stand-in's scratch folder (its DuckDB) goes with it.
  await closeAthena?.();
});

const credentials = (accessKeyId: string) => ({ accessKeyId, secretAccessKey: 'stand-in' });

describe('JSON-protocol stand-ins and operations they do not implement', () => {
  it('deny and record an ungranted one (firehose:DescribeDeliveryStream) before answering that it is unknown', async () => {
    const client = new FirehoseClient({ region: REGION, endpoint: firehoseUrl, credentials: credentials('writer') });
    await expect(client.send(new DescribeDeliveryStreamCommand({ DeliveryStreamName: 'gw-requests' }))).rejects.toMatchObject({ name: 'AccessDeniedException' });
    expect(authorize.denied).toContain(`writer firehose:DescribeDeliveryStream ${STREAM_ARN}`);
    client.destroy();
  });

  it('deny an ungranted Athena one on its workgroup, and answer a granted but unimplemented one as unknown', async () => {
    const denied = new AthenaClient({ region: REGION, endpoint: athenaUrl, credentials: credentials('writer') });
    await expect(denied.send(new GetWorkGroupCommand({ WorkGroup: 'gw' }))).rejects.toMatchObject({ name: 'AccessDeniedException' });
    expect(authorize.denied).toContain(`writer athena:GetWorkGroup ${WORKGROUP_ARN}`);
    const reader = new AthenaClient({ region: REGION, endpoint: athenaUrl, credentials: credentials('reader') });
    const before = authorize.denied.length;
    await expect(reader.send(new GetWorkGroupCommand({ WorkGroup: 'gw' }))).rejects.toMatchObject({ name: 'UnknownOperationException' });
    expect(authorize.denied.length).toBe(before);
    await expect(reader.send(new ListWorkGroupsCommand({}))).rejects.toMatchObject({ name: 'AccessDeniedException' });
    denied.destroy();
    reader.destroy();
  });
});
