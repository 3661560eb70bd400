import type { MockHandler, RecordedRequest, ScriptedResponse } from '../../support/mock-upstream.js';

/** Token counts the mock's Gemini answer reports for every successful request. */
export const PREDICTION_USAGE = { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 };

interface MockJob {
  name: string;
  displayName: string;
  model: string;
  input: string;
  outputPrefix: string;
  state: string;
  cancelRequested?: boolean;
}

/**
 * Vertex AI's batchPredictionJobs and Cloud Storage's JSON API (media upload and `alt=media` download) in one real
 * HTTP server's handler, as gw reaches both through a custom host. A job advances one step per get: PENDING →
 * RUNNING → SUCCEEDED, when it writes `{outputUriPrefix}/prediction-model-1/predictions.jsonl` (answers in reverse
 * order, as Vertex AI promises none; a `status` error for every request whose first text starts with `fail`). A
 * model named `…broken…` fails at validation; a cancelled job reads CANCELLING once, then CANCELLED. Every call
 * must carry the caller's Bearer token.
 */
export function vertexBatchMock(token: string): { handler: MockHandler; objects: Map<string, string>; jobs: Map<string, MockJob> } {
  const objects = new Map<string, string>();
  const jobs = new Map<string, MockJob>();
  let next = 0;
  const handler: MockHandler = (request: RecordedRequest): ScriptedResponse => {
    if (request.headers.authorization !== `Bearer ${token}`) return { status: 401, json: { error: { code: 401, message: 'Request had invalid authentication credentials.', status: 'UNAUTHENTICATED' } } };
    const upload = /^\/upload\/storage\/v1\/b\/([^/]+)\/o$/.exec(request.path);
    if (request.method === 'POST' && upload && request.query.get('uploadType') === 'media') {
      const name = request.query.get('name')!;
      objects.set(`${upload[1]}/${name}`, request.body);
      return { json: { kind: 'storage#object', bucket: upload[1], name, size: String(request.body.length) } };
    }
    const download = /^\/storage\/v1\/b\/([^/]+)\/o\/(.+)$/.exec(request.path);
    if (request.method === 'GET' && download && request.query.get('alt') === 'media') {
      const object = objects.get(`${download[1]}/${decodeURIComponent(download[2])}`);
      return object === undefined ? { status: 404, json: { error: { code: 404, message: 'No such object', status: 'NOT_FOUND' } } } : { headers: { 'content-type': 'application/octet-stream' }, chunks: [object] };
    }
    const create = /^\/v1\/(projects\/[^/]+\/locations\/[^/]+)\/batchPredictionJobs$/.exec(request.path);
    if (request.method === 'POST' && create) {
      const body = request.json as { displayName: string; model: string; inputConfig: { gcsSource: { uris: string[] } }; outputConfig: { gcsDestination: { outputUriPrefix: string } } };
      const job: MockJob = { name: `${create[1]}/batchPredictionJobs/${1000 + ++next}`, displayName: body.displayName, model: body.model, input: body.inputConfig.gcsSource.uris[0], outputPrefix: body.outputConfig.gcsDestination.outputUriPrefix, state: 'JOB_STATE_PENDING' };
      jobs.set(job.name, job);
      return { json: view(job) };
    }
    const job = /^\/v1\/(projects\/.+\/batchPredictionJobs\/\d+)(:cancel)?$/.exec(request.path);
    const found = job ? jobs.get(job[1]) : undefined;
    if (!found) return { status: 404, json: { error: { code: 404, message: 'not found', status: 'NOT_FOUND' } } };
    if (request.method === 'POST' && job![2]) {
      found.state = 'JOB_STATE_CANCELLING';
      found.cancelRequested = true;
      return { json: {} };
    }
    advance(found);
    return { json: view(found) };
  };

  function advance(job: MockJob): void {
    if (job.cancelRequested) job.cancelRequested = false;
    else if (job.state === 'JOB_STATE_CANCELLING') job.state = 'JOB_STATE_CANCELLED';
    else if (job.state === 'JOB_STATE_PENDING') job.state = job.model.includes('broken') ? 'JOB_STATE_FAILED' : 'JOB_STATE_RUNNING';
    else if (job.state === 'JOB_STATE_RUNNING') complete(job);
  }

  function complete(job: MockJob): void {
    const requests = objects.get(job.input.replace(/^gs:\/\//, ''))!.trim().split('\n').map((line) => (JSON.parse(line) as { request: { contents: Array<{ parts: Array<{ text?: string }> }> } }).request);
    const lines = requests.map((request) =>
      request.contents[0].parts[0].text?.startsWith('fail')
        ? { request, status: 'Bad Request: {"error": {"code": 400, "message": "maxOutputTokens is too large"}}' }
        : { request, response: { candidates: [{ content: { role: 'model', parts: [{ text: 'Batched hello' }] }, finishReason: 'STOP' }], usageMetadata: PREDICTION_USAGE, modelVersion: 'gemini-batch' }, status: '' },
    );
    objects.set(`${job.outputPrefix.replace(/^gs:\/\//, '')}/prediction-model-1/predictions.jsonl`, lines.reverse().map((line) => JSON.stringify(line)).join('\n') + '\n');
    job.state = 'JOB_STATE_SUCCEEDED';
  }

  function view(job: MockJob): Record<string, unknown> {
    const ended = ['JOB_STATE_SUCCEEDED', 'JOB_STATE_FAILED', 'JOB_STATE_CANCELLED'].includes(job.state);
    const total = objects.get(job.input.replace(/^gs:\/\//, ''))?.trim().split('\n').length ?? 0;
    const failed = job.state === 'JOB_STATE_SUCCEEDED' ? (objects.get(job.input.replace(/^gs:\/\//, '')) ?? '').split('"text":"fail').length - 1 : 0;
    return {
      name: job.name,
      displayName: job.displayName,
      model: job.model,
      state: job.state,
      createTime: '2026-11-29T01:00:00Z',
      startTime: job.state === 'JOB_STATE_PENDING' ? undefined : '2026-11-29T01:05:00Z',
      endTime: ended ? '2026-11-29T02:00:00Z' : undefined,
      updateTime: '2026-11-29T01:30:00Z',
      error: job.state === 'JOB_STATE_FAILED' ? { code: 3, message: `Model ${job.model} does not support batch prediction` } : undefined,
      outputInfo: job.state === 'JOB_STATE_SUCCEEDED' ? { gcsOutputDirectory: `${job.outputPrefix}/prediction-model-1` } : undefined,
      completionStats: job.state === 'JOB_STATE_SUCCEEDED' ? { successfulCount: String(total - failed), failedCount: String(failed) } : undefined,
    };
  }

  return { handler, objects, jobs };
}
