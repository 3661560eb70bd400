import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryObjects, s3StandIn } from '../../../shared/store/recording/stand-ins/s3-stand-in.js';
import { serveOnLoopback, type LoopbackServer } from '../../../shared/store/recording/stand-ins/wire.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { startMockUpstream, type MockUpstream } from '../../support/mock-upstream.js';
import { batchProviderMock } from './mock-batch-provider.js';

// gw on AWS keeps files in S3: here the real S3 client against an S3 stand-in on loopback, so the presigned URL is
// a real SigV4 query-signed URL the test PUTs to without any gw credential.
const BUCKET = 'gw-batch-blobs';
const objects = memoryObjects();
let s3: LoopbackServer;
let gateway: TestGateway;
let upstream: MockUpstream;

beforeAll(async () => {
  s3 = await serveOnLoopback(s3StandIn({ buckets: { [BUCKET]: objects } }));
  upstream = await startMockUpstream(batchProviderMock().handler);
  gateway = await startTestGateway({ GW_BLOB_BUCKET: BUCKET, GW_S3_ENDPOINT: s3.url });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
  await s3?.close();
});

const LINES = ['a', 'b'].map((id) => JSON.stringify({ custom_id: id, method: 'POST', url: '/v1/chat/completions', body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 5 } })).join('\n') + '\n';

async function call(method: string, path: string, json?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${gateway.url}${path}`, {
    method,
    headers: { 'x-gw-api-key': gateway.apiKey, ...(json === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('presigned upload of a batch input file (the blob store on S3)', () => {
  it('the bytes go straight to the bucket, never through gw; gw checks them when the file is first used', async () => {
    const started = await call('POST', '/v1/files', { filename: 'big.jsonl', purpose: 'batch', bytes: Buffer.byteLength(LINES) });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(started.body).toMatchObject({ object: 'file', status: 'uploading', upload_method: 'PUT', upload_url: expect.stringContaining(`${s3.url}/${BUCKET}/batch-files/`) });
    const fileId = started.body.id as string;
    const headers = { 'x-gw-provider': 'openai', 'x-gw-custom-host': `${upstream.url}/v1`, authorization: 'Bearer sk-provider-secret' };
    const early = await call('POST', '/v1/batches', { input_file_id: fileId, endpoint: '/v1/chat/completions', completion_window: '24h' }, headers);
    expect(early.status).toBe(409);
    expect(early.body.error).toMatchObject({ code: 'file_upload_pending', param: 'file_id' });
    expect((await call('GET', `/v1/files/${fileId}`)).body.status).toBe('uploading');

    const put = await fetch(started.body.upload_url as string, { method: 'PUT', headers: { 'content-type': 'application/jsonl' }, body: LINES });
    expect(put.status).toBe(200);
    expect((await call('GET', `/v1/files/${fileId}`)).body).toMatchObject({ status: 'processed', bytes: Buffer.byteLength(LINES) });
    const created = await call('POST', '/v1/batches', { input_file_id: fileId, endpoint: '/v1/chat/completions', completion_window: '24h' }, headers);
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(upstream.requests.find((request) => request.path === '/v1/files')!.body).toContain('"custom_id":"b"');
  });

  it('bytes beyond the declared size, or a bad line, are refused when gw reads them', async () => {
    const small = await call('POST', '/v1/files', { filename: 'small.jsonl', purpose: 'batch', bytes: 10 });
    await fetch(small.body.upload_url as string, { method: 'PUT', headers: { 'content-type': 'application/jsonl' }, body: LINES });
    const read = await call('GET', `/v1/files/${small.body.id as string}`);
    expect(read.status).toBe(400);
    expect(read.body.error).toMatchObject({ code: 'file_too_large' });

    const broken = await call('POST', '/v1/files', { filename: 'broken.jsonl', purpose: 'batch', bytes: 100 });
    await fetch(broken.body.upload_url as string, { method: 'PUT', headers: { 'content-type': 'application/jsonl' }, body: 'not json\n' });
    expect((await call('GET', `/v1/files/${broken.body.id as string}/content`)).body.error).toMatchObject({ code: 'invalid_batch_file' });
  });

  it('a declared size above 200 MB is refused before any URL is handed out', async () => {
    const answer = await call('POST', '/v1/files', { filename: 'huge.jsonl', purpose: 'batch', bytes: 300 * 1024 * 1024 });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 'invalid_body', param: 'bytes' });
  });
});
