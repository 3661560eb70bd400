import { randomBytes } from 'node:crypto';
import { badRequest, GatewayError } from '../../../http/errors.js';
import { geminiModelId } from '../../../providers/google/model-id.js';
import type { ProviderAdapter, TargetSettings } from '../../../providers/types.js';
import { vertexAccessToken } from '../../../providers/vertex-ai/credentials.js';
import { vertexLocation } from '../../../providers/vertex-ai/routes.js';
import { sendBatchCall, sendBatchCallUnlessMissing, sendBatchJson } from '../provider-calls.js';
import { DEFAULT_BATCH_PREFIX, GCS_BUCKET, OBJECT_PREFIX } from './cloud-batch-fields.js';
import type { BatchApiCall, BatchDriver, BatchSettingsStore } from './types.js';
import { fromVertexPredictions, toVertexRequests, vertexJobView } from './vertex-records.js';

const INPUT_NAME = 'input.jsonl';
/** The file Gemini batch prediction writes its answers to, in the job's output directory. */
const PREDICTIONS_NAME = 'predictions.jsonl';
const JOB_NAME = /^projects\/[A-Za-z0-9.:_-]+\/locations\/[a-z0-9-]+\/batchPredictionJobs\/[0-9]+$/;

/**
 * Vertex AI batch prediction by translation (docs/batches.md): gw writes the batch's lines as Gemini requests to
 * the customer's Cloud Storage bucket (`{prefix}{job name}/input.jsonl`, the JSON API's media upload), creates a
 * batchPredictionJob that reads them and writes to `{prefix}{job name}/output`, polls and cancels it, and reads
 * its `predictions.jsonl` back as OpenAI's result lines. Vertex AI's and Cloud Storage's calls carry the target's
 * Google access token (a virtual key's service account, or the caller's token); Vertex AI runs the job as its own
 * service agent, which must be able to read and write the bucket. A custom host replaces both hosts.
 */
export function vertexBatchDriver(adapter: ProviderAdapter, target: TargetSettings, storedIn: BatchSettingsStore): BatchDriver {
  const { projectId, region } = vertexLocation({ endpoint: 'chat', body: {}, stream: false, target, forwardHeaders: {} });
  const custom = target.customHost?.replace(/\/+$/, '');
  const aiplatform = custom ?? (region === 'global' ? 'https://aiplatform.googleapis.com' : `https://${region}-aiplatform.googleapis.com`);
  const storage = custom ?? 'https://storage.googleapis.com';
  const authorised = async (call: BatchApiCall): Promise<BatchApiCall> => {
    const token = await vertexAccessToken(target);
    return token === undefined ? call : { method: call.method, url: call.url, body: call.body, headers: Object.assign({ authorization: `Bearer ${token}` }, call.headers) };
  };
  const jobUrl = (name: string, suffix = '') => {
    if (!JOB_NAME.test(name)) throw new GatewayError(502, 'upstream_invalid_response', 'Vertex AI named its batch job in a form gw does not know', { type: 'upstream_error', upstream: true });
    return `${aiplatform}/v1/${name}${suffix}`;
  };
  const retrieve = async (name: string, signal?: AbortSignal) => vertexJobView(await sendBatchJson(adapter, await authorised({ method: 'GET', url: jobUrl(name), headers: { accept: 'application/json' } }), signal));

  return {
    validate(lines, submission) {
      if (submission.endpoint !== '/v1/chat/completions') throw badRequest('batch_endpoint_unsupported', 'Vertex AI batches through gw run chat (/v1/chat/completions) only', 'endpoint');
      if (/^(publishers\/anthropic\/|claude)/i.test(submission.model)) throw badRequest('batch_model_unsupported', 'Vertex AI batches through gw run Gemini models, not Claude', 'input_file_id');
      batchLocation(target, storedIn);
      toVertexRequests(lines, target);
    },
    async submit(lines, submission, signal) {
      const { bucket, prefix } = batchLocation(target, storedIn);
      const jobName = `gw-batch-${randomBytes(10).toString('hex')}`;
      const folder = `${prefix}${jobName}/`;
      const upload: BatchApiCall = {
        method: 'POST',
        url: `${storage}/upload/storage/v1/b/${bucket}/o?uploadType=media&name=${encodeURIComponent(`${folder}${INPUT_NAME}`)}`,
        headers: { 'content-type': 'application/jsonl' },
        body: toVertexRequests(lines, target),
      };
      await sendBatchCall(adapter, await authorised(upload), signal);
      const model = `publishers/google/models/${geminiModelId(submission.model.replace(/^publishers\/google\/models\//, ''))}`;
      const body = JSON.stringify({
        displayName: jobName,
        model,
        inputConfig: { instancesFormat: 'jsonl', gcsSource: { uris: [`gs://${bucket}/${folder}${INPUT_NAME}`] } },
        outputConfig: { predictionsFormat: 'jsonl', gcsDestination: { outputUriPrefix: `gs://${bucket}/${folder}output` } },
      });
      const url = `${aiplatform}/v1/projects/${projectId}/locations/${region}/batchPredictionJobs`;
      const created = await sendBatchJson(adapter, await authorised({ method: 'POST', url, headers: { 'content-type': 'application/json' }, body }), signal);
      if (typeof created.name !== 'string') throw new GatewayError(502, 'upstream_invalid_response', 'Vertex AI answered batchPredictionJobs.create without a job name', { type: 'upstream_error', upstream: true });
      return vertexJobView(created, lines.length);
    },
    retrieve,
    async cancel(name, signal) {
      await sendBatchCall(adapter, await authorised({ method: 'POST', url: jobUrl(name, ':cancel'), headers: { 'content-type': 'application/json' }, body: '{}' }), signal);
      return retrieve(name, signal);
    },
    async results(view, lines, signal) {
      const match = typeof view.output_directory === 'string' ? /^gs:\/\/([^/]+)\/(.+?)\/?$/.exec(view.output_directory) : null;
      if (!match || !GCS_BUCKET.test(match[1])) return {};
      const object = `${match[2]}/${PREDICTIONS_NAME}`;
      const call: BatchApiCall = { method: 'GET', url: `${storage}/storage/v1/b/${match[1]}/o/${encodeURIComponent(object)}?alt=media`, headers: {} };
      const bytes = await sendBatchCallUnlessMissing(adapter, await authorised(call), signal);
      return bytes ? fromVertexPredictions(bytes, lines, target, String(lines[0]?.body.model ?? '')) : {};
    },
  };
}

/** Where a batch's files go: a missing or malformed setting is a 400 naming its field. */
function batchLocation(target: TargetSettings, storedIn: BatchSettingsStore): { bucket: string; prefix: string } {
  const vertex = target.vertex ?? {};
  // Beside a stored credential the headers are refused (caller.ts): the field to set is the stored one.
  const param = (header: string, keyField: string) => (storedIn ? `vertex.${keyField}` : header);
  if (!vertex.batchBucket) {
    const where = storedIn ? `the ${storedIn}'s vertex.batch_bucket` : 'x-gw-vertex-batch-bucket';
    throw badRequest('missing_batch_bucket', `Vertex AI batches need a Cloud Storage bucket for their input and results: set ${where}`, param('x-gw-vertex-batch-bucket', 'batch_bucket'));
  }
  if (!GCS_BUCKET.test(vertex.batchBucket)) throw badRequest('invalid_batch_bucket', 'The batch bucket must be a Cloud Storage bucket name of 3–63 lower-case letters, digits, hyphens and underscores', param('x-gw-vertex-batch-bucket', 'batch_bucket'));
  const prefix = vertex.batchPrefix ?? DEFAULT_BATCH_PREFIX;
  if (!OBJECT_PREFIX.test(prefix) || prefix.length > 512) throw badRequest('invalid_batch_prefix', 'The batch prefix must be letters, digits and ._-/ ending in / (e.g. gw-batches/)', param('x-gw-vertex-batch-prefix', 'batch_prefix'));
  return { bucket: vertex.batchBucket, prefix };
}
