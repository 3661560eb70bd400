import { badRequest, GatewayError } from '../../../http/errors.js';
import { toGenerateContentBody } from '../../../providers/google/request.js';
import { toChatCompletion } from '../../../providers/google/response.js';
import type { AdapterInput, TargetSettings } from '../../../providers/types.js';
import { batchResultLine, parseResultLines, resultLines, type BatchInputLine } from '../jsonl.js';
import { jobView } from './job-view.js';
import type { BatchResultFiles } from './types.js';

/**
 * The label that names a line in Vertex AI's output: batch prediction echoes each request with its answer, in no
 * promised order, and a request's `labels` are part of it (label values: lower-case letters, digits, `-`, `_`).
 */
const LINE_LABEL = 'gw_batch_line';

const chatInput = (line: BatchInputLine, target: TargetSettings): AdapterInput => ({ endpoint: 'chat', body: line.body, stream: false, target, forwardHeaders: {} });

/**
 * The batch input as Vertex AI's Gemini batch requests (`{"request": {…}}` JSONL): each line's chat body through
 * the same generateContent translation as a chat request, labelled with its position. A line that does not
 * translate is a 400 naming it, before anything is reserved or sent.
 */
export function toVertexRequests(lines: readonly BatchInputLine[], target: TargetSettings): Buffer {
  const requests: string[] = [];
  for (const [index, line] of lines.entries()) {
    let request: Record<string, unknown>;
    try {
      request = { ...toGenerateContentBody(chatInput(line, target), 'Vertex AI') } as Record<string, unknown>;
    } catch (error) {
      if (error instanceof GatewayError && error.status === 400) throw badRequest('invalid_batch_file', `request ${index + 1} (${line.custom_id}): ${error.message}`, 'input_file_id');
      throw error;
    }
    request.labels = { [LINE_LABEL]: `l${index}` };
    requests.push(JSON.stringify({ request }));
  }
  return Buffer.from(requests.join('\n') + '\n');
}

function lineOf(prediction: Record<string, unknown>, lines: readonly BatchInputLine[]): { index: number; line?: BatchInputLine } | undefined {
  const labels = (prediction.request as { labels?: Record<string, unknown> } | undefined)?.labels;
  const match = typeof labels?.[LINE_LABEL] === 'string' ? /^l(\d{1,6})$/.exec(labels[LINE_LABEL]) : null;
  if (!match) return undefined;
  const index = Number(match[1]);
  return { index, line: lines[index] };
}

/**
 * Vertex AI's prediction lines (`{request, response, status}`; `status` holds the error of a request that failed)
 * as OpenAI's batch output lines: a generateContent answer becomes a chat completion through the chat response
 * translation; a failure, or an answer that does not translate, a line of the error file.
 */
export function fromVertexPredictions(bytes: Uint8Array, lines: readonly BatchInputLine[], target: TargetSettings, model: string): BatchResultFiles {
  const output: Array<Record<string, unknown>> = [];
  const errors: Array<Record<string, unknown>> = [];
  for (const [position, prediction] of parseResultLines(bytes).entries()) {
    const found = lineOf(prediction, lines);
    const requestId = `l${found?.index ?? position}`;
    // Without the input file (deleted since), a result is still logged and charged, under its position.
    const line = found?.line ?? { custom_id: requestId, method: 'POST', url: '/v1/chat/completions', body: { model } };
    const failure = typeof prediction.status === 'string' && prediction.status !== '' ? prediction.status : undefined;
    if (failure === undefined && typeof prediction.response === 'object' && prediction.response !== null) {
      try {
        output.push(batchResultLine(line.custom_id, requestId, 200, toChatCompletion(chatInput(line, target), prediction.response)));
        continue;
      } catch (error) {
        const summary = error instanceof GatewayError ? error : new GatewayError(502, 'invalid_provider_response', 'Vertex AI answered a request gw could not read');
        errors.push(batchResultLine(line.custom_id, requestId, summary.status, { error: { message: summary.message, type: 'upstream_error', code: summary.code } }));
        continue;
      }
    }
    errors.push(batchResultLine(line.custom_id, requestId, 500, { error: { message: failure ?? 'Vertex AI recorded no answer for this request', type: 'upstream_error', code: 'vertex_request_failed' } }));
  }
  return { output: resultLines(output), errors: resultLines(errors) };
}

/** Vertex AI's job state → OpenAI's batch status. */
const STATUS: Record<string, string> = {
  JOB_STATE_QUEUED: 'validating',
  JOB_STATE_PENDING: 'validating',
  JOB_STATE_RUNNING: 'in_progress',
  JOB_STATE_UPDATING: 'in_progress',
  JOB_STATE_PAUSED: 'in_progress',
  JOB_STATE_SUCCEEDED: 'completed',
  JOB_STATE_PARTIALLY_SUCCEEDED: 'completed',
  JOB_STATE_FAILED: 'failed',
  JOB_STATE_CANCELLING: 'cancelling',
  JOB_STATE_CANCELLED: 'cancelled',
  JOB_STATE_EXPIRED: 'expired',
};

// int64 fields travel as JSON strings.
const count = (value: unknown) => (typeof value === 'string' || typeof value === 'number' ? Number(value) || 0 : 0);

/** A BatchPredictionJob as OpenAI's batch object (`id` is the job's resource name), with its output directory. */
export function vertexJobView(job: Record<string, unknown>, total?: number): Record<string, unknown> {
  const state = typeof job.state === 'string' ? job.state : 'JOB_STATE_PENDING';
  const directory = (job.outputInfo as { gcsOutputDirectory?: unknown } | undefined)?.gcsOutputDirectory;
  const stats = job.completionStats as Record<string, unknown> | undefined;
  const completed = count(stats?.successfulCount);
  const failed = count(stats?.failedCount);
  return jobView({
    id: String(job.name),
    status: STATUS[state] ?? 'in_progress',
    createdAt: job.createTime as string | undefined,
    startedAt: job.startTime as string | undefined,
    endedAt: job.endTime as string | undefined,
    updatedAt: job.updateTime as string | undefined,
    failure: { code: 'vertex_job_failed', message: (job.error as { message?: unknown } | undefined)?.message },
    requestCounts: stats ? { total: total ?? completed + failed + count(stats.incompleteCount), completed, failed } : total === undefined ? undefined : { total, completed: 0, failed: 0 },
    internal: { vertex_state: state, output_directory: typeof directory === 'string' ? directory : undefined },
  });
}
