import type { MockHandler, RecordedRequest, ScriptedResponse } from '../../support/mock-upstream.js';

/** Token counts the mock's Converse answer reports for every successful record. */
export const RECORD_USAGE = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };

interface MockJob {
  jobArn: string;
  jobName: string;
  modelId: string;
  roleArn: string;
  input: { bucket: string; key: string };
  output: string;
  status: string;
  message?: string;
  /** Stopped just now: the next read still says Stopping (Bedrock takes a while to stop). */
  stopRequested?: boolean;
}

/**
 * Bedrock's batch inference control plane (`/model-invocation-job`) and S3 (path-style `/{bucket}/{key}`) in one
 * real HTTP server's handler, as gw reaches both through a custom host. A job advances one step per
 * GetModelInvocationJob: Submitted → InProgress → Completed, when it writes `{output}{job id}/input.jsonl.out`
 * (a Converse answer per record; an `error` for every record whose first user text starts with `fail`) and
 * `manifest.json.out`. A model id containing `broken` fails the job at validation; a stopped job ends Stopped with
 * no output (the read right after the stop still says Stopping). Each call must be SigV4-signed for its service (`/s3/` or `/bedrock/` in the credential scope).
 */
export function bedrockBatchMock(): { handler: MockHandler; objects: Map<string, string>; jobs: Map<string, MockJob> } {
  const objects = new Map<string, string>();
  const jobs = new Map<string, MockJob>();
  let next = 0;
  const handler: MockHandler = (request: RecordedRequest): ScriptedResponse => {
    const path = decodeURIComponent(request.path);
    if (path === '/model-invocation-job' || path.startsWith('/model-invocation-job/')) {
      if (!signedFor(request, 'bedrock')) return { status: 403, json: { message: 'The request signature is not for bedrock' }, headers: { 'x-amzn-errortype': 'InvalidSignatureException' } };
      return controlPlane(request, path);
    }
    if (!signedFor(request, 's3')) return { status: 403, headers: { 'content-type': 'application/xml' }, chunks: ['<Error><Code>SignatureDoesNotMatch</Code></Error>'] };
    const key = path.slice(1);
    if (request.method === 'PUT') {
      objects.set(key, request.body);
      return { status: 200, headers: { etag: '"mock"' }, chunks: [''] };
    }
    const object = objects.get(key);
    if (request.method === 'GET' && object !== undefined) return { headers: { 'content-type': 'application/octet-stream' }, chunks: [object] };
    return { status: 404, headers: { 'content-type': 'application/xml' }, chunks: ['<Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>'] };
  };

  function controlPlane(request: RecordedRequest, path: string): ScriptedResponse {
    if (request.method === 'POST' && path === '/model-invocation-job') {
      const body = request.json as { jobName: string; modelId: string; roleArn: string; inputDataConfig: { s3InputDataConfig: { s3Uri: string } }; outputDataConfig: { s3OutputDataConfig: { s3Uri: string } } };
      const input = /^s3:\/\/([^/]+)\/(.+)$/.exec(body.inputDataConfig.s3InputDataConfig.s3Uri)!;
      const jobArn = `arn:aws:bedrock:us-east-1:123456789012:model-invocation-job/job${++next}abc`;
      jobs.set(jobArn, { jobArn, jobName: body.jobName, modelId: body.modelId, roleArn: body.roleArn, input: { bucket: input[1], key: input[2] }, output: body.outputDataConfig.s3OutputDataConfig.s3Uri, status: 'Submitted' });
      return { json: { jobArn } };
    }
    const match = /^\/model-invocation-job\/(.+?)(\/stop)?$/.exec(path);
    const job = match ? jobs.get(match[1]) : undefined;
    if (!job) return { status: 404, json: { message: 'Could not find the job' }, headers: { 'x-amzn-errortype': 'ResourceNotFoundException' } };
    if (request.method === 'POST' && match![2]) {
      job.status = 'Stopping';
      job.stopRequested = true;
      return { json: {} };
    }
    advance(job);
    return { json: view(job) };
  }

  function advance(job: MockJob): void {
    if (job.stopRequested) job.stopRequested = false;
    else if (job.status === 'Stopping') job.status = 'Stopped';
    else if (job.status === 'Submitted' && job.modelId.includes('broken')) {
      job.status = 'Failed';
      job.message = `The model ${job.modelId} does not support batch inference`;
    } else if (job.status === 'Submitted') job.status = 'InProgress';
    else if (job.status === 'InProgress') complete(job);
  }

  function complete(job: MockJob): void {
    const records = objects.get(`${job.input.bucket}/${job.input.key}`)!.trim().split('\n').map((line) => JSON.parse(line) as { recordId: string; modelInput: { messages: Array<{ content: Array<{ text?: string }> }> } });
    const folder = `${job.output.replace(/^s3:\/\//, '')}${job.jobArn.slice(job.jobArn.lastIndexOf('/') + 1)}/`;
    let failed = 0;
    const lines = records.map((record) => {
      if (record.modelInput.messages[0].content[0].text?.startsWith('fail')) {
        failed++;
        return { recordId: record.recordId, modelInput: record.modelInput, error: { errorCode: 400, errorMessage: 'Malformed input request: max_tokens is too large' } };
      }
      const modelOutput = { output: { message: { role: 'assistant', content: [{ text: 'Batched hello' }] } }, stopReason: 'end_turn', usage: RECORD_USAGE, metrics: { latencyMs: 100 } };
      return { recordId: record.recordId, modelInput: record.modelInput, modelOutput };
    });
    objects.set(`${folder}input.jsonl.out`, lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
    objects.set(`${folder}manifest.json.out`, JSON.stringify({ totalRecordCount: records.length, processedRecordCount: records.length, successRecordCount: records.length - failed, errorRecordCount: failed, inputTokenCount: 10 * records.length, outputTokenCount: 5 * (records.length - failed) }));
    job.status = 'Completed';
  }

  function view(job: MockJob): Record<string, unknown> {
    const ended = ['Completed', 'Failed', 'Stopped'].includes(job.status);
    return {
      jobArn: job.jobArn,
      jobName: job.jobName,
      modelId: job.modelId,
      roleArn: job.roleArn,
      status: job.status,
      message: job.message,
      submitTime: '2026-11-29T01:00:00Z',
      lastModifiedTime: '2026-11-29T01:30:00Z',
      endTime: ended ? '2026-11-29T02:00:00Z' : undefined,
      jobExpirationTime: '2026-11-30T01:00:00Z',
      inputDataConfig: { s3InputDataConfig: { s3Uri: `s3://${job.input.bucket}/${job.input.key}` } },
      outputDataConfig: { s3OutputDataConfig: { s3Uri: job.output } },
    };
  }

  return { handler, objects, jobs };
}

/** The request carries a SigV4 signature whose credential scope names this service. */
function signedFor(request: RecordedRequest, service: string): boolean {
  const authorization = String(request.headers.authorization ?? '');
  return authorization.startsWith('AWS4-HMAC-SHA256 ') && authorization.includes(`/${service}/aws4_request`) && typeof request.headers['x-amz-content-sha256'] === 'string';
}
