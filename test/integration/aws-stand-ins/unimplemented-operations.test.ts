import { AthenaClient, ListWorkGroupsCommand, GetWorkGroupCommand } from '@aws-sdk/client-athena';
import { DescribeDeliveryStreamCommand, FirehoseClient } from '@aws-sdk/client-firehose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CopyObjectCommand, DeleteObjectsCommand, GetObjectTaggingCommand, HeadBucketCommand, ListBucketsCommand, PutObjectCommand, PutObjectTaggingCommand, S3Client } from '@aws-sdk/client-s3';
import { memoryObjects, s3StandIn } from '../../../shared/store/recording/stand-ins/s3-stand-in.js';
import { serveOnLoopback, type LoopbackServer } from '../../../shared/store/recording/stand-ins/wire.js';
import { athenaStandIn } from '../../aws-shaped/support/athena-stand-in.js';
import { firehoseStandIn } from '../../aws-shaped/support/firehose-stand-in.js';
import { templateAuthorizer, type Statement } from '../../support/iam-policy.js';

/**
 * The offline AWS checks deny exactly what the roles deny: the JSON-protocol stand-ins (Firehose, Athena) authorise
 * every operation against the caller's statements before anything else, the ones they do not implement included, so
 * an ungranted new call (a `firehose:DescribeDeliveryStream` whose error the code swallows) is a recorded denial
 * that fails the suite, not an UnknownOperationException. The REST/XML one (S3) likewise, before its 501
 * NotImplemented. Class: stand-ins answering before the IAM check.
 */
const REGION = 'us-east-1';
const ACCOUNT = '123456789012';
const STREAM_ARN = `arn:aws:firehose:${REGION}:${ACCOUNT}:deliverystream/gw-requests`;
const WORKGROUP_ARN = `arn:aws:athena:${REGION}:${ACCOUNT}:workgroup/gw`;
// The writer may only put records; the reader may only run queries: the grants the stack gives them.
const statements = new Map<string, Statement[]>([
  ['writer', [
    { actions: ['firehose:PutRecordBatch'], resources: [STREAM_ARN] },
    { actions: ['s3:GetObject', 's3:PutObject', 's3:GetObjectTagging'], resources: ['arn:aws:s3:::data/*'] },
  ]],
  ['reader', [{ actions: ['athena:StartQueryExecution', 'athena:GetQueryExecution', 'athena:GetWorkGroup'], resources: [WORKGROUP_ARN] }]],
]);
const authorize = templateAuthorizer(statements, (key) => key);
const servers: LoopbackServer[] = [];
let firehoseUrl: string;
let athenaUrl: string;
let s3Url: string;
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
  const s3 = s3StandIn({ buckets: { data: memoryObjects(), results: memoryObjects() }, authorize });
  servers.push(await serveOnLoopback(firehose.handler), await serveOnLoopback(athena.handler), await serveOnLoopback(s3));
  [firehoseUrl, athenaUrl, s3Url] = servers.map((server) => server.url);
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

describe('the S3 stand-in and operations it does not implement', () => {
  const s3 = () => new S3Client({ region: REGION, endpoint: s3Url, forcePathStyle: true, credentials: credentials('writer') });
  const ungranted = [
    { name: 'HeadBucket', send: (client: S3Client) => client.send(new HeadBucketCommand({ Bucket: 'data' })), denial: 'writer s3:ListBucket arn:aws:s3:::data' },
    { name: 'ListBuckets', send: (client: S3Client) => client.send(new ListBucketsCommand({})), denial: 'writer s3:ListAllMyBuckets *' },
    { name: 'PutObjectTagging', send: (client: S3Client) => client.send(new PutObjectTaggingCommand({ Bucket: 'data', Key: 'a.txt', Tagging: { TagSet: [{ Key: 'k', Value: 'v' }] } })), denial: 'writer s3:PutObjectTagging arn:aws:s3:::data/a.txt' },
    { name: 'CopyObject from a bucket not granted', send: (client: S3Client) => client.send(new CopyObjectCommand({ Bucket: 'data', Key: 'copy.txt', CopySource: 'results/secret.txt' })), denial: 'writer s3:GetObject arn:aws:s3:::results/secret.txt' },
    { name: 'DeleteObjects', send: (client: S3Client) => client.send(new DeleteObjectsCommand({ Bucket: 'data', Delete: { Objects: [{ Key: 'a.txt' }] } })), denial: 'writer s3:DeleteObject arn:aws:s3:::data/a.txt' },
  ];
  for (const { name, send, denial } of ungranted) {
    it(`deny and record an ungranted ${name} before answering NotImplemented`, async () => {
      const client = s3();
      await expect(send(client)).rejects.toMatchObject({ $metadata: { httpStatusCode: 403 } });
      expect(authorize.denied).toContain(denial);
      client.destroy();
    });
  }

  it('answer a granted but unimplemented one (GetObjectTagging) as NotImplemented, with no denial, and serve the implemented ones', async () => {
    const client = s3();
    await client.send(new PutObjectCommand({ Bucket: 'data', Key: 'a.txt', Body: 'a' }));
    const before = authorize.denied.length;
    await expect(client.send(new GetObjectTaggingCommand({ Bucket: 'data', Key: 'a.txt' }))).rejects.toMatchObject({ name: 'NotImplemented', $metadata: { httpStatusCode: 501 } });
    expect(authorize.denied.length).toBe(before);
    client.destroy();
  });
});
