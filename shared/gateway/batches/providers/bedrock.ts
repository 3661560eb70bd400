import { randomBytes } from 'node:crypto';
import { badRequest, GatewayError } from '../../../http/errors.js';
import { merged } from '../../../merged.js';
import { readBedrockAuth, type BedrockAuth } from '../../../providers/bedrock/auth.js';
import { signAwsRequest } from '../../../providers/common/aws-sigv4.js';
import type { ProviderAdapter, TargetSettings } from '../../../providers/types.js';
import { sendBatchCall, sendBatchCallUnlessMissing, sendBatchJson } from '../provider-calls.js';
import { TERMINAL_STATUSES } from '../views.js';
import { bedrockJobView, fromBedrockOutput, toBedrockRecords } from './bedrock-records.js';
import { DEFAULT_BATCH_PREFIX, IAM_ROLE_ARN, OBJECT_PREFIX, S3_BUCKET } from './cloud-batch-fields.js';
import type { BatchApiCall, BatchDriver, BatchSettingsStore } from './types.js';

/** The input's object name in the job's folder; Bedrock names its output after it (`input.jsonl.out`). */
const INPUT_NAME = 'input.jsonl';

/**
 * Bedrock batch inference by translation (docs/batches.md): gw writes the batch's lines as Bedrock records to the
 * customer's S3 bucket (`{prefix}{job name}/input.jsonl`), creates a model invocation job of type Converse that
 * reads them and writes to `{prefix}{job name}/output/`, polls it, stops it, and reads its output back as OpenAI's
 * result lines. Both the control plane (`bedrock.{region}`) and S3 are called with the target's AWS credentials
 * (SigV4); Bedrock itself runs the job as the batch role. A custom host replaces both hosts (S3 path-style under
 * it), for tests and proxies.
 */
export function bedrockBatchDriver(adapter: ProviderAdapter, target: TargetSettings, storedIn: BatchSettingsStore): BatchDriver {
  const auth = readBedrockAuth(target);
  if (auth.kind !== 'sigv4') {
    throw badRequest('batches_need_aws_credentials', 'Bedrock batches write to S3, which a Bedrock API key cannot: send AWS credentials (x-gw-aws-access-key-id, …) or use a virtual key that holds them or names a role', 'authorization');
  }
  const domain = auth.region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com';
  const custom = target.customHost?.replace(/\/+$/, '');
  const control = custom ?? `https://bedrock.${auth.region}.${domain}`;
  const objectUrl = (bucket: string, key: string) => (custom ? `${custom}/${bucket}/${key}` : `https://${bucket}.s3.${auth.region}.${domain}/${key}`);
  const signed = (service: 'bedrock' | 's3', call: BatchApiCall) => signCall(auth, service, call);
  const jobUrl = (jobArn: string, suffix = '') => `${control}/model-invocation-job/${encodeURIComponent(jobArn)}${suffix}`;

  const retrieve = async (jobArn: string, signal?: AbortSignal) => {
    const job = await sendBatchJson(adapter, await signed('bedrock', { method: 'GET', url: jobUrl(jobArn), headers: { accept: 'application/json' } }), signal);
    const view = bedrockJobView(job);
    // Once the job has ended, its manifest holds the record counts (absent when the job failed before running).
    if (!TERMINAL_STATUSES.has(String(view.status))) return view;
    const output = outputFolder(view);
    if (!output) return view;
    const manifest = await sendBatchCallUnlessMissing(adapter, await signed('s3', { method: 'GET', url: objectUrl(output.bucket, `${output.key}manifest.json.out`), headers: {} }), signal);
    return manifest ? bedrockJobView(job, parseObject(manifest)) : view;
  };

  return {
    validate(lines, submission) {
      if (submission.endpoint !== '/v1/chat/completions') throw badRequest('batch_endpoint_unsupported', 'Bedrock batches through gw run chat (/v1/chat/completions) only', 'endpoint');
      batchLocation(target, storedIn);
      toBedrockRecords(lines, target);
    },
    async submit(lines, submission, signal) {
      const { bucket, prefix, roleArn } = batchLocation(target, storedIn);
      const jobName = `gw-batch-${randomBytes(10).toString('hex')}`;
      const folder = `${prefix}${jobName}/`;
      const put: BatchApiCall = { method: 'PUT', url: objectUrl(bucket, `${folder}${INPUT_NAME}`), headers: { 'content-type': 'application/jsonl' }, body: toBedrockRecords(lines, target) };
      await sendBatchCall(adapter, await signed('s3', put), signal);
      const body = JSON.stringify({
        jobName,
        clientRequestToken: jobName,
        roleArn,
        modelId: submission.model,
        modelInvocationType: 'Converse',
        inputDataConfig: { s3InputDataConfig: { s3Uri: `s3://${bucket}/${folder}${INPUT_NAME}`, s3InputFormat: 'JSONL' } },
        outputDataConfig: { s3OutputDataConfig: { s3Uri: `s3://${bucket}/${folder}output/` } },
        // OpenAI's only completion window.
        timeoutDurationInHours: 24,
      });
      const created = await sendBatchJson(adapter, await signed('bedrock', { method: 'POST', url: `${control}/model-invocation-job`, headers: { 'content-type': 'application/json' }, body }), signal);
      if (typeof created.jobArn !== 'string') throw new GatewayError(502, 'upstream_invalid_response', 'Bedrock answered CreateModelInvocationJob without a jobArn', { type: 'upstream_error', upstream: true });
      return { id: created.jobArn, object: 'batch', status: 'validating', request_counts: { total: lines.length, completed: 0, failed: 0 } };
    },
    retrieve,
    async cancel(jobArn, signal) {
      await sendBatchCall(adapter, await signed('bedrock', { method: 'POST', url: jobUrl(jobArn, '/stop'), headers: { 'content-type': 'application/json' }, body: '' }), signal);
      return retrieve(jobArn, signal);
    },
    async results(view, lines, signal) {
      const output = outputFolder(view);
      if (!output) return {};
      const bytes = await sendBatchCallUnlessMissing(adapter, await signed('s3', { method: 'GET', url: objectUrl(output.bucket, `${output.key}${INPUT_NAME}.out`), headers: {} }), signal);
      return bytes ? fromBedrockOutput(bytes, lines, String(lines[0]?.body.model ?? view.model ?? '')) : {};
    },
  };
}

/** Where a batch's files go and the role Bedrock runs it as: each missing or malformed one a 400 naming its field. */
function batchLocation(target: TargetSettings, storedIn: BatchSettingsStore): { bucket: string; prefix: string; roleArn: string } {
  const aws = target.aws ?? {};
  // Beside a stored credential the headers are refused (caller.ts): the field to set is the stored one.
  const field = (header: string, keyField: string) => (storedIn ? `the ${storedIn}'s aws.${keyField}` : header);
  if (!aws.batchBucket) throw badRequest('missing_batch_bucket', `Bedrock batches need an S3 bucket for their input and results: set ${field('x-gw-aws-batch-bucket', 'batch_bucket')}`, storedIn ? 'aws.batch_bucket' : 'x-gw-aws-batch-bucket');
  if (!S3_BUCKET.test(aws.batchBucket)) throw badRequest('invalid_batch_bucket', 'The batch bucket must be an S3 bucket name of 3–63 lower-case letters, digits and hyphens', storedIn ? 'aws.batch_bucket' : 'x-gw-aws-batch-bucket');
  if (!aws.batchRoleArn) throw badRequest('missing_batch_role', `Bedrock batches run as a service role that may read and write the bucket: set ${field('x-gw-aws-batch-role-arn', 'batch_role_arn')}`, storedIn ? 'aws.batch_role_arn' : 'x-gw-aws-batch-role-arn');
  if (!IAM_ROLE_ARN.test(aws.batchRoleArn)) throw badRequest('invalid_batch_role', 'The batch role must be an IAM role ARN such as arn:aws:iam::123456789012:role/gw-bedrock-batch', storedIn ? 'aws.batch_role_arn' : 'x-gw-aws-batch-role-arn');
  const prefix = aws.batchPrefix ?? DEFAULT_BATCH_PREFIX;
  if (!OBJECT_PREFIX.test(prefix) || prefix.length > 512) throw badRequest('invalid_batch_prefix', 'The batch prefix must be letters, digits and ._-/ ending in / (e.g. gw-batches/)', storedIn ? 'aws.batch_prefix' : 'x-gw-aws-batch-prefix');
  return { bucket: aws.batchBucket, prefix, roleArn: aws.batchRoleArn };
}

/** The job's output folder, from its own outputDataConfig: `s3://bucket/{prefix}{job}/output/` + the job id. */
function outputFolder(view: Record<string, unknown>): { bucket: string; key: string } | undefined {
  const match = typeof view.output_uri === 'string' ? /^s3:\/\/([^/]+)\/(.*)$/.exec(view.output_uri) : null;
  if (!match || !S3_BUCKET.test(match[1]) || typeof view.job_id !== 'string' || !/^[a-z0-9]+$/i.test(view.job_id)) return undefined;
  const folder = match[2] === '' || match[2].endsWith('/') ? match[2] : `${match[2]}/`;
  return { bucket: match[1], key: `${folder}${view.job_id}/` };
}

async function signCall(auth: Extract<BedrockAuth, { kind: 'sigv4' }>, service: 'bedrock' | 's3', call: BatchApiCall): Promise<BatchApiCall> {
  const credentials = typeof auth.credentials === 'function' ? await auth.credentials() : auth.credentials;
  const body = call.body ?? '';
  const headers = await signAwsRequest({ method: call.method, url: call.url, headers: call.headers, body, service, region: auth.region, credentials, sendPayloadHash: true });
  return merged(call, { headers, body });
}

function parseObject(bytes: Uint8Array): Record<string, unknown> | undefined {
  try {
    const parsed = JSON.parse(Buffer.from(bytes).toString('utf8')) as unknown;
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
