import { randomBytes } from 'node:crypto';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataExport } from '../../../shared/control-plane/exports/schemas.js';
import type { RequestLog } from '../../../shared/control-plane/logs/schemas.js';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import { localExportDirectory } from '../../../shared/observability/engine/select.js';
import { BlobStoreError } from '../../../shared/store/blobs/blob-store.js';
import { S3BlobStore } from '../../../shared/store/blobs/s3-blob-store.js';
import { memoryObjects, s3StandIn } from '../../../shared/store/recording/stand-ins/s3-stand-in.js';
import { serveOnLoopback, type LoopbackServer } from '../../../shared/store/recording/stand-ins/wire.js';
import { synthGwStack, tableWithScheduledFixtures } from '../../infra/support/synth.js';
import { startTestGateway, type TestGateway } from '../../support/gateway.js';
import { functionStatements, isAllowed, templateAuthorizer, type Template } from '../../support/iam-policy.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import { startMockUpstream, type MockUpstream } from '../../support/mock-upstream.js';
import { api, expectError } from '../control-plane/identities-support.js';
import { viaMock } from '../observability/observability-support.js';

/**
 * A blob that is gone (expired by the bucket lifecycle, removed) is "not found", never a 500: gw on S3, against an
 * S3 stand-in that answers as S3 does (a missing key is 404 NoSuchKey only to a role that may s3:ListBucket the
 * bucket, 403 AccessDenied otherwise), with every call authorised by the control plane's statements in the
 * synthesised stack. Log bodies read back as null, an export with a body missing still completes, and the download
 * of an export file that is gone is 404.
 */
const BUCKET = 'gw-test-blobs';
let gateway: TestGateway;
let upstream: MockUpstream;
let s3: LoopbackServer;
let bare: LoopbackServer;
const objects = memoryObjects();
/** Keys whose GetObject the stand-in refuses (403), as S3 would for an object encrypted with a key the role may not use. */
const unreadable = new Set<string>();
let authorize: ReturnType<typeof templateAuthorizer>;
let canList = false;

beforeAll(async () => {
  const { stack, template } = synthGwStack({ functions: tableWithScheduledFixtures() });
  const bucketId = stack.getLogicalId(stack.blobs.bucket.node.defaultChild as never);
  const statements = functionStatements(template.toJSON() as Template, { region: 'us-east-1', account: '123456789012', names: { [bucketId]: BUCKET } });
  // The local runtime runs both cores with one credential: a call is allowed when the gateway's role (which writes
  // bodies) or the control plane's (which reads them back) allows it; ListBucket must be the control plane's own.
  canList = isAllowed(statements.get('control-plane')!, 's3:ListBucket', `arn:aws:s3:::${BUCKET}`);
  const both = new Map([['gateway or control-plane', [...statements.get('gateway')!, ...statements.get('control-plane')!]]]);
  authorize = templateAuthorizer(both, () => 'gateway or control-plane');
  s3 = await serveOnLoopback(
    s3StandIn({ buckets: { [BUCKET]: objects }, authorize: (who, action, resource) => !(action === 's3:GetObject' && unreadable.has(resource.split(`${BUCKET}/`)[1])) && authorize(who, action, resource) }),
  );
  // The same bucket for a role without s3:ListBucket (what the stack granted before).
  bare = await serveOnLoopback(s3StandIn({ buckets: { [BUCKET]: objects }, authorize: (_who, action) => action !== 's3:ListBucket' }));
  upstream = await startMockUpstream(openAIMockHandler());
  // Every body above 64 bytes goes to the bucket.
  gateway = await startTestGateway({ GW_BLOB_BUCKET: BUCKET, GW_S3_ENDPOINT: s3.url, GW_LOG_BODY_INLINE_BYTES: '64' });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
  await s3?.close();
  await bare?.close();
});

async function loggedRequests(run: string, count: number): Promise<RequestLog[]> {
  for (let i = 0; i < count; i++) {
    const body = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: `Tell me something long enough to be stored in the bucket, number ${i}.` }] };
    const response = await gateway.post('/v1/chat/completions', body, { ...viaMock(upstream.url), 'x-gw-metadata': JSON.stringify({ run }) });
    expect(response.status).toBe(200);
    await response.text();
  }
  await drainAllBackgroundWork();
  const listed = await api<{ data: RequestLog[] }>(gateway, 'GET', `/v1/logs?metadata.run=${run}`);
  expect(listed.body.data).toHaveLength(count);
  return listed.body.data;
}

const requestBodyKeyOf = (log: RequestLog) => [...objects.objects.keys()].find((key) => key.startsWith(`logs/`) && key.includes(`${log.id}-request-`));

describe('a blob that is gone', () => {
  it('is 403 AccessDenied from S3 without s3:ListBucket, and "not found" with it (what the stack now grants)', async () => {
    const withoutList = new S3BlobStore({ bucket: BUCKET, region: 'us-east-1', endpoint: bare.url });
    await expect(withoutList.get('logs/ws_1/never-written.json')).rejects.toBeInstanceOf(BlobStoreError);
    const withList = new S3BlobStore({ bucket: BUCKET, region: 'us-east-1', endpoint: s3.url });
    expect(await withList.get('logs/ws_1/never-written.json')).toBeUndefined();
    expect(canList, 'the stack grants the functions that read blobs s3:ListBucket on the bucket').toBe(true);
  });

  it('reads back as a null body in GET /v1/logs/{id}, not a 500', async () => {
    const [log] = await loggedRequests(`one-${Date.now()}`, 1);
    const key = requestBodyKeyOf(log);
    expect(key, 'the request body went to the bucket').toBeDefined();
    objects.objects.delete(key!);
    const reply = await api<RequestLog>(gateway, 'GET', `/v1/logs/${log.id}`);
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    expect(reply.body.request_body).toBeNull();
    expect(reply.body.response_body).not.toBeNull();
  });

  it('makes a stored conversation whose body is gone a 404, like one never stored', async () => {
    const { ResponseRepository } = await import('../../../shared/dialects/responses/response-repository.js');
    const id = `resp_missing_${Date.now()}`;
    // Incompressible text, so the gzipped conversation passes the inline limit and goes to the bucket.
    const stored = { response: { id, object: 'response', status: 'completed', output: [] }, inputItems: [], conversation: [{ type: 'message', role: 'user', content: randomBytes(450_000).toString('base64') }] };
    await new ResponseRepository().save(gateway.bootstrap.workspaceId, stored);
    const key = [...objects.objects.keys()].find((name) => name.startsWith('responses/') && name.includes(id));
    expect(key, 'the conversation went to the bucket').toBeDefined();
    expect((await api(gateway, 'GET', `/v1/responses/${id}`)).status).toBe(200);
    objects.objects.delete(key!);
    expectError(await api(gateway, 'GET', `/v1/responses/${id}`), 404, 'response_not_found');
  });

  it('never fails an export for a body that is gone: rows carry body references, and a gone file is 404', async () => {
    const run = `export-${Date.now()}`;
    const logs = await loggedRequests(run, 3);
    const bodyKeys = new Set(logs.map((log) => requestBodyKeyOf(log)));
    objects.objects.delete(requestBodyKeyOf(logs[0])!);
    unreadable.add(requestBodyKeyOf(logs[1])!);
    const created = await api<DataExport>(gateway, 'POST', '/v1/exports', { body: { metadata: { run } } });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    await drainAllBackgroundWork();
    const done = await waitForExport(created.body.id);
    expect(done).toMatchObject({ status: 'completed', row_count: 3, error: null });
    const download = await fetch(done.download_url!, { headers: { 'x-gw-api-key': gateway.apiKey } });
    expect(download.status).toBe(200);
    const rows = (await download.text()).trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    // The engine writes the rows as stored: a body kept in the blob store is a reference, never read for the export.
    expect(new Set(rows.map((row) => row.request_body_ref))).toEqual(bodyKeys);

    const file = findExportFile(localExportDirectory(), created.body.id);
    rmSync(file!);
    expectError(await api(gateway, 'GET', `/v1/exports/${created.body.id}/download`), 404, 'export_file_not_found');
    // Nothing the code did needed a call its role does not allow.
    expect(authorize.denied).toEqual([]);
  });

  /** The export as the API shows it once its engine job finished (DuckDB's COPY runs on its own threads). */
  async function waitForExport(id: string): Promise<DataExport> {
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const read = await api<DataExport>(gateway, 'GET', `/v1/exports/${id}`);
      if (read.body.status === 'completed' || read.body.status === 'failed') return read.body;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`export ${id} did not finish`);
  }
});

/** The file an export job wrote under the local export folder (one folder per workspace, named by the export id). */
function findExportFile(directory: string, exportId: string): string | undefined {
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) {
      const found = findExportFile(path, exportId);
      if (found) return found;
    } else if (entry.name.startsWith(exportId)) return path;
  }
  return undefined;
}
