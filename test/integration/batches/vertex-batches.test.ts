import { describe, expect, it } from 'vitest';
import { batchClient } from '../../support/batch-tenants.js';
import { usePricedGateway } from '../../support/priced-gateway.js';
import { requestLogsOfTrace } from '../../support/request-logs.js';
import { eventually } from '../enforcement/enforcement-support.js';
import { vertexBatchMock } from './mock-vertex-batch.js';

// 10 prompt tokens × $0.1 + 5 completion tokens × $0.05 = $1.25 a request at the standard price, $0.625 at
// Vertex AI's batch price (half).
const MODEL = 'gemini-batch-flash';
const LINE_COST = 0.625;
const TOKEN = 'ya29.vertex-batch-token';
const BUCKET = 'team_batches';
const mock = vertexBatchMock(TOKEN);
const priced = usePricedGateway({ provider: 'vertex-ai', prices: { [MODEL]: { input_per_mtok: 100_000, output_per_mtok: 50_000 } }, handler: mock.handler });
const batches = batchClient(() => priced.gateway);

const credentials = () => ({ 'x-gw-provider': 'vertex-ai', 'x-gw-vertex-project-id': 'team-project', 'x-gw-vertex-region': 'us-central1', authorization: `Bearer ${TOKEN}`, 'x-gw-custom-host': priced.upstream.url });
const viaVertex = () => ({ ...credentials(), 'x-gw-vertex-batch-bucket': BUCKET });
const CREATE = (fileId: string) => ({ input_file_id: fileId, endpoint: '/v1/chat/completions', completion_window: '24h' });

function line(customId: string, text = `Say hi to ${customId}`, model = MODEL) {
  return JSON.stringify({ custom_id: customId, method: 'POST', url: '/v1/chat/completions', body: { model, messages: [{ role: 'user', content: text }], max_tokens: 20 } });
}

describe('batches on Vertex AI by translation (batchPredictionJobs and Cloud Storage as a real HTTP server)', () => {
  it('runs end to end: Gemini requests uploaded to Cloud Storage, a batch prediction job created, polled, its predictions read back by line, logged and charged at the batch price', async () => {
    const who = await batches.tenant('vertex batch end to end', { budget: 100 });
    const fileId = await batches.fileOf(who, [line('one'), line('two'), line('fail-three', 'fail this one')]);
    const traceId = `vertex-batch-${Date.now()}`;
    const created = await batches.call(who, 'POST', '/v1/batches', { json: CREATE(fileId), headers: { ...viaVertex(), 'x-gw-trace-id': traceId } });
    expect(created.status, created.text).toBe(200);
    expect(created.body).toMatchObject({ provider: 'vertex-ai', status: 'validating', request_counts: { total: 3, completed: 0, failed: 0 } });
    expect(JSON.stringify(created.body)).not.toContain('batchPredictionJobs');

    const upload = priced.upstream.requests.find((request) => request.path === `/upload/storage/v1/b/${BUCKET}/o`)!;
    expect(upload.query.get('name')).toMatch(/^gw-batches\/gw-batch-[0-9a-f]{20}\/input\.jsonl$/);
    const requests = upload.body.trim().split('\n').map((text) => (JSON.parse(text) as { request: Record<string, unknown> }).request);
    expect(requests[0]).toMatchObject({ contents: [{ role: 'user', parts: [{ text: 'Say hi to one' }] }], generationConfig: { maxOutputTokens: 20 }, labels: { gw_batch_line: 'l0' } });
    const job = priced.upstream.requests.find((request) => request.path === '/v1/projects/team-project/locations/us-central1/batchPredictionJobs')!;
    const folder = `gs://${BUCKET}/${upload.query.get('name')!.slice(0, -'input.jsonl'.length)}`;
    expect(job.json).toMatchObject({
      model: `publishers/google/models/${MODEL}`,
      inputConfig: { instancesFormat: 'jsonl', gcsSource: { uris: [`${folder}input.jsonl`] } },
      outputConfig: { predictionsFormat: 'jsonl', gcsDestination: { outputUriPrefix: `${folder}output` } },
    });
    expect(JSON.stringify(priced.upstream.requests.map((request) => request.headers))).not.toContain(who.key);

    const batchId = created.body.id as string;
    expect((await batches.call(who, 'GET', `/v1/batches/${batchId}`, { headers: viaVertex() })).body.status).toBe('in_progress');
    const done = await batches.call(who, 'GET', `/v1/batches/${batchId}`, { headers: viaVertex() });
    expect(done.status, done.text).toBe(200);
    expect(done.body).toMatchObject({ status: 'completed', request_counts: { total: 3, completed: 2, failed: 1 }, output_file_id: expect.stringMatching(/^file-/), error_file_id: expect.stringMatching(/^file-/) });

    // The predictions came back in reverse order: each is still named by its own custom_id.
    const output = (await batches.call(who, 'GET', `/v1/files/${done.body.output_file_id as string}/content`)).text.trim().split('\n').map((text) => JSON.parse(text) as { custom_id: string; response: { status_code: number; body: Record<string, unknown> } });
    expect(output.map((result) => result.custom_id).sort()).toEqual(['one', 'two']);
    expect(output[0].response).toMatchObject({ status_code: 200, body: { object: 'chat.completion', choices: [expect.objectContaining({ message: expect.objectContaining({ content: 'Batched hello' }), finish_reason: 'stop' })], usage: expect.objectContaining({ prompt_tokens: 10, completion_tokens: 5 }) } });
    const errors = (await batches.call(who, 'GET', `/v1/files/${done.body.error_file_id as string}/content`)).text;
    expect(errors).toContain('"custom_id":"fail-three"');
    expect(errors).toContain('maxOutputTokens is too large');

    await eventually(async () => (Math.abs((await batches.usageOf(who.workspaceId)) - 2 * LINE_COST) < 1e-9 ? true : undefined), 'the batch charged at the batch price');
    const logs = await eventually(async () => {
      const found = await requestLogsOfTrace(traceId);
      return found.length === 3 ? found : undefined;
    }, 'three logged result lines');
    const byLine = Object.fromEntries(logs.map((log) => [log.metadata.custom_id, log]));
    expect(byLine.two).toMatchObject({ workspace_id: who.workspaceId, provider: 'vertex-ai', model: MODEL, status: 200, cost: LINE_COST, endpoint: 'chat', metadata: { batch_id: batchId } });
    expect(byLine['fail-three']).toMatchObject({ outcome: 'error', cost: 0 });
  });

  it('a job Vertex AI fails ends failed with its reason, and its reservation is given back', async () => {
    const who = await batches.tenant('vertex batch failed', { budget: 100 });
    const fileId = await batches.fileOf(who, [line('a', 'Hi', 'gemini-broken')]);
    const batchId = (await batches.call(who, 'POST', '/v1/batches', { json: CREATE(fileId), headers: viaVertex() })).body.id as string;
    const failed = await batches.call(who, 'GET', `/v1/batches/${batchId}`, { headers: viaVertex() });
    expect(failed.body).toMatchObject({ status: 'failed', output_file_id: null, errors: { data: [expect.objectContaining({ code: 'vertex_job_failed', message: expect.stringContaining('does not support batch prediction') })] } });
    await eventually(async () => ((await batches.usageOf(who.workspaceId)) === 0 ? true : undefined), 'the reservation given back');
  });

  it('cancel calls the job’s :cancel: cancelling, then cancelled with nothing charged; another workspace gets 404', async () => {
    const who = await batches.tenant('vertex batch cancel', { budget: 100 });
    const other = await batches.tenant('vertex batch other');
    const fileId = await batches.fileOf(who, [line('a')]);
    const batchId = (await batches.call(who, 'POST', '/v1/batches', { json: CREATE(fileId), headers: viaVertex() })).body.id as string;
    expect((await batches.call(other, 'POST', `/v1/batches/${batchId}/cancel`, { headers: viaVertex() })).status).toBe(404);
    expect((await batches.call(other, 'GET', `/v1/batches/${batchId}`, { headers: viaVertex() })).status).toBe(404);
    const cancelling = await batches.call(who, 'POST', `/v1/batches/${batchId}/cancel`, { headers: viaVertex() });
    expect(cancelling.body.status, cancelling.text).toBe('cancelling');
    expect(priced.upstream.requests.some((request) => request.method === 'POST' && request.path.endsWith(':cancel'))).toBe(true);
    expect((await batches.call(who, 'GET', `/v1/batches/${batchId}`, { headers: viaVertex() })).body.status).toBe('cancelled');
    await eventually(async () => ((await batches.usageOf(who.workspaceId)) === 0 ? true : undefined), 'the reservation given back');
  });

  it('missing or malformed settings are a 400 naming the field, before anything is reserved or sent', async () => {
    const who = await batches.tenant('vertex batch settings', { budget: 100 });
    const fileId = await batches.fileOf(who, [line('a')]);
    const claude = await batches.fileOf(who, [line('c', 'Hi', 'claude-sonnet-4')]);
    const before = priced.upstream.requests.length;
    const cases: Array<[string, Record<string, string>, string, string]> = [
      [fileId, credentials(), 'missing_batch_bucket', 'x-gw-vertex-batch-bucket'],
      [fileId, { ...viaVertex(), 'x-gw-vertex-batch-bucket': 'gs://team' }, 'invalid_batch_bucket', 'x-gw-vertex-batch-bucket'],
      [fileId, { ...viaVertex(), 'x-gw-vertex-batch-prefix': 'no-slash' }, 'invalid_batch_prefix', 'x-gw-vertex-batch-prefix'],
      [claude, viaVertex(), 'batch_model_unsupported', 'input_file_id'],
    ];
    for (const [file, headers, code, param] of cases) {
      const answer = await batches.call(who, 'POST', '/v1/batches', { json: CREATE(file), headers });
      expect(answer.status, answer.text).toBe(400);
      expect(answer.body.error).toMatchObject({ code, param });
    }
    expect(priced.upstream.requests.length).toBe(before);
    expect(await batches.usageOf(who.workspaceId)).toBe(0);
  });

  it('stored batch settings on an integration: a batch through x-gw-provider: @slug uses the integration’s bucket and prefix, a caller-named one beside it is refused, and malformed or removed settings are 400s naming the integration’s field', async () => {
    const who = await batches.tenant('vertex batch via integration', { budget: 100 });
    const slug = `vx-${Date.now()}`;
    const integration = await admin('POST', '/v1/integrations', {
      name: `vertex batches ${slug}`,
      slug: `int-${slug}`,
      provider: 'vertex-ai',
      credential: TOKEN,
      custom_host: priced.upstream.url,
      shared_with_workspaces: [who.workspaceId],
      vertex: { batch_bucket: 'integration_batches', batch_prefix: 'teams/x/' },
    });
    expect(integration.status, JSON.stringify(integration.body)).toBe(201);
    // Not secrets: shown as stored, beside the masked credential (never the token itself).
    expect(integration.body.vertex).toEqual({ batch_bucket: 'integration_batches', batch_prefix: 'teams/x/' });
    expect(JSON.stringify(integration.body)).not.toContain(TOKEN);
    const integrationId = integration.body.id as string;
    expect((await admin('POST', `/v1/providers?workspace_id=${who.workspaceId}`, { integration_id: integrationId, slug })).status).toBe(201);
    const viaIntegration = { 'x-gw-provider': `@${slug}`, 'x-gw-vertex-project-id': 'team-project', 'x-gw-vertex-region': 'us-central1' };
    const fileId = await batches.fileOf(who, [line('one'), line('two')]);

    const refused = await batches.call(who, 'POST', '/v1/batches', { json: CREATE(fileId), headers: { ...viaIntegration, 'x-gw-vertex-batch-bucket': 'someone_elses' } });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'batch_setting_with_stored_credential', param: 'x-gw-vertex-batch-bucket' });

    // The integration's token goes only to its own host, as for chat.
    const before = priced.upstream.requests.length;
    const elsewhere = await batches.call(who, 'POST', '/v1/batches', { json: CREATE(fileId), headers: { ...viaIntegration, 'x-gw-custom-host': 'http://127.0.0.2:9' } });
    expect(elsewhere.status, elsewhere.text).toBe(400);
    expect(elsewhere.body.error).toMatchObject({ param: 'x-gw-custom-host' });
    expect(priced.upstream.requests.length).toBe(before);

    const created = await batches.call(who, 'POST', '/v1/batches', { json: CREATE(fileId), headers: viaIntegration });
    expect(created.status, created.text).toBe(200);
    const upload = priced.upstream.requests.filter((request) => request.path === '/upload/storage/v1/b/integration_batches/o').at(-1)!;
    expect(upload.query.get('name')).toMatch(/^teams\/x\/gw-batch-[0-9a-f]{20}\/input\.jsonl$/);
    const batchId = created.body.id as string;
    await batches.call(who, 'GET', `/v1/batches/${batchId}`, { headers: viaIntegration });
    const done = await batches.call(who, 'GET', `/v1/batches/${batchId}`, { headers: viaIntegration });
    expect(done.body).toMatchObject({ status: 'completed', request_counts: { total: 2, completed: 2, failed: 0 }, output_file_id: expect.stringMatching(/^file-/) });
    await eventually(async () => (Math.abs((await batches.usageOf(who.workspaceId)) - 2 * LINE_COST) < 1e-9 ? true : undefined), 'the batch charged at the batch price');

    // Checked when stored, as a virtual key's: the field named in the integration's shape.
    const malformed = await admin('POST', '/v1/integrations', { name: `bad ${slug}`, provider: 'vertex-ai', credential: TOKEN, vertex: { batch_bucket: 'gs://team' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatchObject({ param: 'vertex.batch_bucket' });
    const mismatched = await admin('POST', '/v1/integrations', { name: `aws on vertex ${slug}`, provider: 'vertex-ai', credential: TOKEN, aws: { batch_bucket: 'team-batches' } });
    expect(mismatched.status).toBe(400);
    expect(mismatched.body.error).toMatchObject({ code: 'settings_provider_mismatch', param: 'aws' });

    // Removed (null), the next batch is told which field of the integration to set.
    const removed = await admin('PATCH', `/v1/integrations/${integrationId}`, { vertex: null });
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect(removed.body.vertex).toBeUndefined();
    const beforeMissing = priced.upstream.requests.length;
    const missing = await batches.call(who, 'POST', '/v1/batches', { json: CREATE(fileId), headers: viaIntegration });
    expect(missing.status, missing.text).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'missing_batch_bucket', param: 'vertex.batch_bucket', message: expect.stringContaining("integration's vertex.batch_bucket") });
    expect(priced.upstream.requests.length).toBe(beforeMissing);
  });
});

/** A control-plane call with the organisation admin key (integrations and workspace providers). */
async function admin(method: string, path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${priced.gateway.url}${path}`, { method, headers: { 'content-type': 'application/json', 'x-gw-api-key': priced.gateway.apiKey }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
