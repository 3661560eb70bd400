import { describe, expect, it } from 'vitest';
import { batchClient } from '../../support/batch-tenants.js';
import { usePricedGateway } from '../../support/priced-gateway.js';
import { requestLogsOfTrace } from '../../support/request-logs.js';
import { eventually } from '../enforcement/enforcement-support.js';
import { bedrockBatchMock } from './mock-bedrock-batch.js';

// Round prices: 10 input tokens × $0.1 + 5 output tokens × $0.05 = $1.25 a record at the on-demand price,
// $0.625 at Bedrock's batch price (half).
const MODEL = 'amazon.nova-batch-v1:0';
const RECORD_COST = 0.625;
const BUCKET = 'team-batches';
const ROLE = 'arn:aws:iam::123456789012:role/gw-bedrock-batch';
// The gateway's own AWS identity (GW_BEDROCK_FUNCTION_ROLE, on in the stack) signs for an integration that stores
// no credential: here the default credential chain reads these stand-ins from the environment.
const FUNCTION_ROLE = { accessKeyId: 'ASIABATCHFUNCTIONROLE1', secretAccessKey: 'batchFunctionRoleSecret/EXAMPLE0001' };
process.env.AWS_ACCESS_KEY_ID = FUNCTION_ROLE.accessKeyId;
process.env.AWS_SECRET_ACCESS_KEY = FUNCTION_ROLE.secretAccessKey;
const mock = bedrockBatchMock();
const priced = usePricedGateway({ provider: 'bedrock', prices: { [MODEL]: { input_per_mtok: 100_000, output_per_mtok: 50_000 } }, handler: mock.handler, env: { GW_BEDROCK_FUNCTION_ROLE: 'ON', AWS_REGION: 'us-east-1' } });
const batches = batchClient(() => priced.gateway);

const credentials = () => ({ 'x-gw-provider': 'bedrock', 'x-gw-aws-access-key-id': 'AKIDEXAMPLE', 'x-gw-aws-secret-access-key': 'bedrock-secret-example', 'x-gw-aws-region': 'us-east-1', 'x-gw-custom-host': priced.upstream.url });
const viaBedrock = () => ({ ...credentials(), 'x-gw-aws-batch-bucket': BUCKET, 'x-gw-aws-batch-role-arn': ROLE });
const CREATE = (fileId: string) => ({ input_file_id: fileId, endpoint: '/v1/chat/completions', completion_window: '24h' });

function line(customId: string, text = `Say hi to ${customId}`, model = MODEL) {
  return JSON.stringify({ custom_id: customId, method: 'POST', url: '/v1/chat/completions', body: { model, messages: [{ role: 'system', content: 'Be brief' }, { role: 'user', content: text }], max_tokens: 20 } });
}

describe('batches on Bedrock by translation (control plane and S3 as a real HTTP server)', () => {
  it('runs end to end: records written to S3, a Converse job created, polled, its output read back as OpenAI result lines, logged and charged at the batch price', async () => {
    const who = await batches.tenant('bedrock batch end to end', { budget: 100 });
    const fileId = await batches.fileOf(who, [line('one'), line('fail-two', 'fail this one')]);
    const traceId = `bedrock-batch-${Date.now()}`;
    const created = await batches.call(who, 'POST', '/v1/batches', { json: { ...CREATE(fileId), metadata: { team: 'b' } }, headers: { ...viaBedrock(), 'x-gw-trace-id': traceId } });
    expect(created.status, created.text).toBe(200);
    expect(created.body).toMatchObject({ object: 'batch', provider: 'bedrock', status: 'validating', model: MODEL, request_counts: { total: 2, completed: 0, failed: 0 } });
    expect(created.body.id).toMatch(/^batch-/);
    expect(JSON.stringify(created.body)).not.toContain('arn:aws:bedrock');

    // The input went to the bucket as Bedrock records in Converse's shape, under the default prefix.
    const put = priced.upstream.requests.find((request) => request.method === 'PUT')!;
    expect(put.path).toMatch(new RegExp(`^/${BUCKET}/gw-batches/gw-batch-[0-9a-f]{20}/input\\.jsonl$`));
    const records = put.body.trim().split('\n').map((text) => JSON.parse(text) as { recordId: string; modelInput: Record<string, unknown> });
    expect(records.map((record) => record.recordId)).toEqual(['R0000000000', 'R0000000001']);
    expect(records[0].modelInput).toEqual({ system: [{ text: 'Be brief' }], messages: [{ role: 'user', content: [{ text: 'Say hi to one' }] }], inferenceConfig: { maxTokens: 20 } });
    const job = priced.upstream.requests.find((request) => request.path === '/model-invocation-job')!;
    const folder = put.path.slice(1, -'input.jsonl'.length);
    expect(job.json).toMatchObject({
      roleArn: ROLE,
      modelId: MODEL,
      modelInvocationType: 'Converse',
      inputDataConfig: { s3InputDataConfig: { s3Uri: `s3://${folder}input.jsonl`, s3InputFormat: 'JSONL' } },
      outputDataConfig: { s3OutputDataConfig: { s3Uri: `s3://${folder}output/` } },
    });
    // Credentials sign the calls; none travels as such, and gw's key never reaches AWS.
    expect(JSON.stringify(priced.upstream.requests.map((request) => request.headers))).not.toContain('bedrock-secret-example');
    expect(JSON.stringify(priced.upstream.requests.map((request) => request.headers))).not.toContain(who.key);
    expect(await batches.usageOf(who.workspaceId)).toBeGreaterThan(2 * 1.25);

    const batchId = created.body.id as string;
    expect((await batches.call(who, 'GET', `/v1/batches/${batchId}`, { headers: viaBedrock() })).body.status).toBe('in_progress');
    const done = await batches.call(who, 'GET', `/v1/batches/${batchId}`, { headers: viaBedrock() });
    expect(done.status, done.text).toBe(200);
    expect(done.body).toMatchObject({ status: 'completed', request_counts: { total: 2, completed: 1, failed: 1 }, output_file_id: expect.stringMatching(/^file-/), error_file_id: expect.stringMatching(/^file-/) });

    const output = (await batches.call(who, 'GET', `/v1/files/${done.body.output_file_id as string}/content`)).text.trim().split('\n').map((text) => JSON.parse(text) as Record<string, unknown>);
    expect(output).toEqual([
      expect.objectContaining({
        custom_id: 'one',
        error: null,
        response: expect.objectContaining({
          status_code: 200,
          body: expect.objectContaining({ object: 'chat.completion', model: MODEL, choices: [expect.objectContaining({ message: expect.objectContaining({ role: 'assistant', content: 'Batched hello' }), finish_reason: 'stop' })], usage: expect.objectContaining({ prompt_tokens: 10, completion_tokens: 5 }) }),
        }),
      }),
    ]);
    const errors = (await batches.call(who, 'GET', `/v1/files/${done.body.error_file_id as string}/content`)).text.trim().split('\n').map((text) => JSON.parse(text) as Record<string, unknown>);
    expect(errors).toEqual([expect.objectContaining({ custom_id: 'fail-two', response: expect.objectContaining({ status_code: 400, body: { error: expect.objectContaining({ message: expect.stringContaining('max_tokens is too large') }) } }) })]);

    await eventually(async () => (Math.abs((await batches.usageOf(who.workspaceId)) - RECORD_COST) < 1e-9 ? true : undefined), 'the batch charged at the batch price');
    const logs = await eventually(async () => {
      const found = await requestLogsOfTrace(traceId);
      return found.length === 2 ? found : undefined;
    }, 'two logged result lines');
    const byLine = Object.fromEntries(logs.map((log) => [log.metadata.custom_id, log]));
    expect(byLine.one).toMatchObject({ workspace_id: who.workspaceId, provider: 'bedrock', model: MODEL, status: 200, cost: RECORD_COST, endpoint: 'chat', metadata: { batch_id: batchId, team: 'b' } });
    expect(byLine['fail-two']).toMatchObject({ status: 400, outcome: 'error', cost: 0 });
    // Polled again, nothing is read, logged or charged twice.
    expect((await batches.call(who, 'GET', `/v1/batches/${batchId}`, { headers: viaBedrock() })).body.status).toBe('completed');
    expect(await batches.usageOf(who.workspaceId)).toBeCloseTo(RECORD_COST, 9);
  });

  it('a job Bedrock fails ends failed with its reason, and its reservation is given back', async () => {
    const who = await batches.tenant('bedrock batch failed', { budget: 100 });
    const fileId = await batches.fileOf(who, [line('a', 'Hi', 'amazon.nova-broken-v1:0')]);
    const batchId = (await batches.call(who, 'POST', '/v1/batches', { json: CREATE(fileId), headers: viaBedrock() })).body.id as string;
    expect(await batches.usageOf(who.workspaceId)).toBeGreaterThan(0);
    const failed = await batches.call(who, 'GET', `/v1/batches/${batchId}`, { headers: viaBedrock() });
    expect(failed.status, failed.text).toBe(200);
    expect(failed.body).toMatchObject({ status: 'failed', output_file_id: null, error_file_id: null, errors: { data: [expect.objectContaining({ code: 'bedrock_job_failed', message: expect.stringContaining('does not support batch inference') })] } });
    await eventually(async () => ((await batches.usageOf(who.workspaceId)) === 0 ? true : undefined), 'the reservation given back');
  });

  it('cancel stops the job (StopModelInvocationJob): cancelling, then cancelled with nothing charged', async () => {
    const who = await batches.tenant('bedrock batch cancel', { budget: 100 });
    const fileId = await batches.fileOf(who, [line('a'), line('b')]);
    const batchId = (await batches.call(who, 'POST', '/v1/batches', { json: CREATE(fileId), headers: viaBedrock() })).body.id as string;
    const cancelling = await batches.call(who, 'POST', `/v1/batches/${batchId}/cancel`, { headers: viaBedrock() });
    expect(cancelling.status, cancelling.text).toBe(200);
    expect(cancelling.body.status).toBe('cancelling');
    const jobArn = [...mock.jobs.keys()].at(-1)!;
    expect(priced.upstream.requests.some((request) => request.method === 'POST' && decodeURIComponent(request.path) === `/model-invocation-job/${jobArn}/stop`)).toBe(true);
    const cancelled = await batches.call(who, 'GET', `/v1/batches/${batchId}`, { headers: viaBedrock() });
    expect(cancelled.body).toMatchObject({ status: 'cancelled', output_file_id: null });
    await eventually(async () => ((await batches.usageOf(who.workspaceId)) === 0 ? true : undefined), 'the reservation given back');
    expect((await batches.call(who, 'POST', `/v1/batches/${batchId}/cancel`, { headers: viaBedrock() })).body.error).toMatchObject({ code: 'batch_finished' });
  });

  it('workspace isolation: a virtual key’s batch is polled with its key and is a 404 to another workspace on every route', async () => {
    const owner = await batches.tenant('bedrock batch owner');
    const other = await batches.tenant('bedrock batch other');
    const response = await fetch(`${priced.gateway.url}/v1/virtual-keys?workspace_id=${owner.workspaceId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gw-api-key': priced.gateway.apiKey },
      body: JSON.stringify({
        name: 'bedrock batches',
        provider: 'bedrock',
        aws: { access_key_id: 'AKIDEXAMPLE0000KEY', secret_access_key: 'stored-secret-example', region: 'eu-west-1', batch_bucket: BUCKET, batch_prefix: 'team/a/', batch_role_arn: ROLE },
        custom_host: priced.upstream.url,
      }),
    });
    const key = (await response.json()) as { id: string; aws: Record<string, unknown> };
    expect(response.status, JSON.stringify(key)).toBe(201);
    expect(key.aws).toMatchObject({ batch_bucket: BUCKET, batch_prefix: 'team/a/', batch_role_arn: ROLE });
    const fileId = await batches.fileOf(owner, [line('a')]);
    const created = await batches.call(owner, 'POST', '/v1/batches', { json: CREATE(fileId), headers: { 'x-gw-virtual-key': key.id } });
    expect(created.status, created.text).toBe(200);
    expect(priced.upstream.requests.filter((request) => request.method === 'PUT').at(-1)!.path).toMatch(new RegExp(`^/${BUCKET}/team/a/gw-batch-`));
    const batchId = created.body.id as string;
    // No credential on the poll: the batch's own virtual key reaches Bedrock.
    await batches.call(owner, 'GET', `/v1/batches/${batchId}`);
    const done = await batches.call(owner, 'GET', `/v1/batches/${batchId}`);
    expect(done.body).toMatchObject({ status: 'completed', output_file_id: expect.stringMatching(/^file-/) });
    for (const [method, path] of [
      ['GET', `/v1/batches/${batchId}`],
      ['POST', `/v1/batches/${batchId}/cancel`],
      ['GET', `/v1/files/${done.body.output_file_id as string}/content`],
    ]) {
      const answer = await batches.call(other, method, path, { headers: viaBedrock() });
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.body.error).toMatchObject({ type: 'not_found_error' });
    }
    expect((await batches.call(other, 'GET', '/v1/batches')).body.data).toEqual([]);
  });

  it('stored credential bound to its batch storage: beside a virtual key, a caller-named bucket, prefix or role is refused before anything is written or passed', async () => {
    const who = await batches.tenant('bedrock batch storage binding', { budget: 100 });
    const fileId = await batches.fileOf(who, [line('a')]);
    const response = await fetch(`${priced.gateway.url}/v1/virtual-keys?workspace_id=${who.workspaceId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gw-api-key': priced.gateway.apiKey },
      body: JSON.stringify({ name: 'bound batch storage', provider: 'bedrock', aws: { access_key_id: 'AKIDEXAMPLE0000KEY', secret_access_key: 'stored-secret-example', region: 'us-east-1', batch_bucket: BUCKET, batch_role_arn: ROLE }, custom_host: priced.upstream.url }),
    });
    const key = (await response.json()) as { id: string };
    const before = priced.upstream.requests.length;
    const overrides: Array<[string, string]> = [
      ['x-gw-aws-batch-bucket', 'someone-elses-bucket'],
      ['x-gw-aws-batch-prefix', 'elsewhere/'],
      ['x-gw-aws-batch-role-arn', 'arn:aws:iam::123456789012:role/admin'],
      ['x-gw-vertex-batch-bucket', 'someone-elses-bucket'],
    ];
    for (const [header, value] of overrides) {
      const answer = await batches.call(who, 'POST', '/v1/batches', { json: CREATE(fileId), headers: { 'x-gw-virtual-key': key.id, [header]: value } });
      expect(answer.status, answer.text).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'batch_setting_with_stored_credential', param: header, type: 'invalid_request_error' });
    }
    expect(priced.upstream.requests.length).toBe(before);
    expect(await batches.usageOf(who.workspaceId)).toBe(0);
  });

  it('missing settings: no bucket, no role, a malformed one or a Bedrock API key is a 400 naming the field, before anything is reserved or sent', async () => {
    const who = await batches.tenant('bedrock batch settings', { budget: 100 });
    const fileId = await batches.fileOf(who, [line('a')]);
    const before = priced.upstream.requests.length;
    const cases: Array<[Record<string, string>, string, string]> = [
      [{ ...credentials(), 'x-gw-aws-batch-role-arn': ROLE }, 'missing_batch_bucket', 'x-gw-aws-batch-bucket'],
      [{ ...credentials(), 'x-gw-aws-batch-bucket': BUCKET }, 'missing_batch_role', 'x-gw-aws-batch-role-arn'],
      [{ ...viaBedrock(), 'x-gw-aws-batch-bucket': 'Not_A_Bucket' }, 'invalid_batch_bucket', 'x-gw-aws-batch-bucket'],
      [{ ...viaBedrock(), 'x-gw-aws-batch-role-arn': 'gw-bedrock-batch' }, 'invalid_batch_role', 'x-gw-aws-batch-role-arn'],
      [{ ...viaBedrock(), 'x-gw-aws-batch-prefix': '../up' }, 'invalid_batch_prefix', 'x-gw-aws-batch-prefix'],
      [{ 'x-gw-provider': 'bedrock', 'x-gw-aws-region': 'us-east-1', authorization: 'Bearer bedrock-api-key', 'x-gw-custom-host': priced.upstream.url }, 'batches_need_aws_credentials', 'authorization'],
    ];
    for (const [headers, code, param] of cases) {
      const answer = await batches.call(who, 'POST', '/v1/batches', { json: CREATE(fileId), headers });
      expect(answer.status, answer.text).toBe(400);
      expect(answer.body.error).toMatchObject({ code, param, type: 'invalid_request_error' });
    }
    const embeddings = (await batches.upload(who, [JSON.stringify({ custom_id: 'e', method: 'POST', url: '/v1/embeddings', body: { model: 'amazon.titan-embed-text-v2:0', input: 'x' } })])).body.id as string;
    const refused = await batches.call(who, 'POST', '/v1/batches', { json: { ...CREATE(embeddings), endpoint: '/v1/embeddings' }, headers: viaBedrock() });
    expect(refused.body.error).toMatchObject({ code: 'batch_endpoint_unsupported', param: 'endpoint' });
    // A virtual key without the batch fields is told which of its fields to set.
    const response = await fetch(`${priced.gateway.url}/v1/virtual-keys?workspace_id=${who.workspaceId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gw-api-key': priced.gateway.apiKey },
      body: JSON.stringify({ name: 'no batch fields', provider: 'bedrock', aws: { access_key_id: 'AKIDEXAMPLE0000KEY', secret_access_key: 'stored-secret-example', region: 'us-east-1' }, custom_host: priced.upstream.url }),
    });
    const key = (await response.json()) as { id: string };
    const viaKey = await batches.call(who, 'POST', '/v1/batches', { json: CREATE(fileId), headers: { 'x-gw-virtual-key': key.id } });
    expect(viaKey.body.error).toMatchObject({ code: 'missing_batch_bucket', param: 'aws.batch_bucket', message: expect.stringContaining('aws.batch_bucket') });
    // The control plane refuses a malformed field when the key is stored.
    const bad = await fetch(`${priced.gateway.url}/v1/virtual-keys?workspace_id=${who.workspaceId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gw-api-key': priced.gateway.apiKey },
      body: JSON.stringify({ name: 'bad batch role', provider: 'bedrock', aws: { access_key_id: 'AKIDEXAMPLE0000KEY', secret_access_key: 'stored-secret-example', batch_role_arn: 'not-an-arn' } }),
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { param: string } }).error.param).toBe('aws.batch_role_arn');
    expect(priced.upstream.requests.length).toBe(before);
    expect(await batches.usageOf(who.workspaceId)).toBe(0);
  });

  it('stored batch settings on an integration: a Bedrock batch through x-gw-provider: @slug writes to the integration’s bucket and prefix and passes its role, a caller-named one beside it is refused, and a malformed one is refused when stored', async () => {
    const who = await batches.tenant('bedrock batch via integration', { budget: 100 });
    const slug = `bd-${Date.now()}`;
    const integrationRole = 'arn:aws:iam::123456789012:role/integration-batch';
    const integration = await admin('POST', '/v1/integrations', {
      name: `bedrock batches ${slug}`,
      slug: `int-${slug}`,
      provider: 'bedrock',
      custom_host: priced.upstream.url,
      shared_with_workspaces: [who.workspaceId],
      aws: { batch_bucket: 'integration-batches', batch_prefix: 'org/b/', batch_role_arn: integrationRole },
    });
    expect(integration.status, JSON.stringify(integration.body)).toBe(201);
    expect(integration.body.aws).toEqual({ batch_bucket: 'integration-batches', batch_prefix: 'org/b/', batch_role_arn: integrationRole });
    expect((await admin('POST', `/v1/providers?workspace_id=${who.workspaceId}`, { integration_id: integration.body.id, slug })).status).toBe(201);
    const viaIntegration = { 'x-gw-provider': `@${slug}` };
    const fileId = await batches.fileOf(who, [line('one')]);

    for (const [header, value] of [['x-gw-aws-batch-bucket', 'someone-elses-bucket'], ['x-gw-aws-batch-role-arn', 'arn:aws:iam::123456789012:role/admin']]) {
      const refused = await batches.call(who, 'POST', '/v1/batches', { json: CREATE(fileId), headers: { ...viaIntegration, [header]: value } });
      expect(refused.status, refused.text).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'batch_setting_with_stored_credential', param: header });
    }

    const created = await batches.call(who, 'POST', '/v1/batches', { json: CREATE(fileId), headers: viaIntegration });
    expect(created.status, created.text).toBe(200);
    const put = priced.upstream.requests.filter((request) => request.method === 'PUT').at(-1)!;
    expect(put.path).toMatch(/^\/integration-batches\/org\/b\/gw-batch-[0-9a-f]{20}\/input\.jsonl$/);
    expect(String(put.headers.authorization)).toContain(`Credential=${FUNCTION_ROLE.accessKeyId}/`);
    expect([...mock.jobs.values()].at(-1)).toMatchObject({ roleArn: integrationRole, input: { bucket: 'integration-batches' } });
    const batchId = created.body.id as string;
    await batches.call(who, 'GET', `/v1/batches/${batchId}`, { headers: viaIntegration });
    const done = await batches.call(who, 'GET', `/v1/batches/${batchId}`, { headers: viaIntegration });
    expect(done.body).toMatchObject({ status: 'completed', output_file_id: expect.stringMatching(/^file-/) });
    await eventually(async () => (Math.abs((await batches.usageOf(who.workspaceId)) - RECORD_COST) < 1e-9 ? true : undefined), 'the batch charged at the batch price');

    const malformed = await admin('POST', '/v1/integrations', { name: `bad role ${slug}`, provider: 'bedrock', aws: { batch_bucket: 'integration-batches', batch_role_arn: 'not-an-arn' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatchObject({ param: 'aws.batch_role_arn' });
  });
});

/** A control-plane call with the organisation admin key (integrations and workspace providers). */
async function admin(method: string, path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${priced.gateway.url}${path}`, { method, headers: { 'content-type': 'application/json', 'x-gw-api-key': priced.gateway.apiKey }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
