import { badRequest, GatewayError } from '../../../http/errors.js';
import { converseToChatCompletion } from '../../../providers/bedrock/chat-response.js';
import { toConverseRequest } from '../../../providers/bedrock/chat-request.js';
import { invokeChatFamilyOf } from '../../../providers/bedrock/invoke-chat.js';
import type { TargetSettings } from '../../../providers/types.js';
import { batchResultLine, parseResultLines, resultLines, type BatchInputLine } from '../jsonl.js';
import { jobView, seconds } from './job-view.js';
import type { BatchResultFiles } from './types.js';

/**
 * Bedrock's record id of a line: its position, as 11 letters and digits (AWS's examples use 11 alphanumerics;
 * an OpenAI custom_id may hold any character). The results name the line by it, and gw maps it back to the
 * custom_id through the batch's input file.
 */
export function recordIdOf(index: number): string {
  return `R${String(index).padStart(10, '0')}`;
}

function indexOfRecord(recordId: unknown): number | undefined {
  const match = typeof recordId === 'string' ? /^R(\d{10})$/.exec(recordId) : null;
  return match ? Number(match[1]) : undefined;
}

/**
 * The batch input as Bedrock's records (`{recordId, modelInput}` JSONL, model invocation type Converse): each
 * line's chat body through the same Converse translation as a chat request. A line Converse cannot carry is a
 * 400 naming it, before anything is reserved or sent.
 */
export function toBedrockRecords(lines: readonly BatchInputLine[], target: TargetSettings): Buffer {
  const records: string[] = [];
  for (const [index, line] of lines.entries()) {
    const model = String(line.body.model);
    if (invokeChatFamilyOf(model)) throw badRequest('batch_model_unsupported', `Bedrock batches run through Converse, which does not chat with ${model}`, 'input_file_id');
    let modelInput: unknown;
    try {
      modelInput = toConverseRequest({ endpoint: 'chat', body: line.body, stream: false, target, forwardHeaders: {} }).request;
    } catch (error) {
      if (error instanceof GatewayError && error.status === 400) throw badRequest('invalid_batch_file', `request ${index + 1} (${line.custom_id}): ${error.message}`, 'input_file_id');
      throw error;
    }
    records.push(JSON.stringify({ recordId: recordIdOf(index), modelInput }));
  }
  return Buffer.from(records.join('\n') + '\n');
}

/**
 * Bedrock's output records (`{recordId, modelInput, modelOutput}` or `{…, error: {errorCode, errorMessage}}`)
 * as OpenAI's batch output lines: a Converse answer becomes a chat completion through the chat response
 * translation; an error, or an answer that does not translate, a line of the error file.
 */
export function fromBedrockOutput(bytes: Uint8Array, lines: readonly BatchInputLine[], model: string): BatchResultFiles {
  const output: Array<Record<string, unknown>> = [];
  const errors: Array<Record<string, unknown>> = [];
  for (const record of parseResultLines(bytes)) {
    const index = indexOfRecord(record.recordId);
    const requestId = String(record.recordId);
    // Without the input file (deleted since), a result is still logged and charged, under its record id.
    const line = (index === undefined ? undefined : lines[index]) ?? { custom_id: requestId, method: 'POST', url: '/v1/chat/completions', body: { model } };
    const failure = record.error as { errorCode?: unknown; errorMessage?: unknown } | undefined;
    if (failure === undefined && record.modelOutput !== undefined) {
      try {
        const legacy = Array.isArray(line.body.functions) && (line.body.tools === undefined || line.body.tools === null);
        output.push(batchResultLine(line.custom_id, requestId, 200, converseToChatCompletion(record.modelOutput, String(line.body.model), legacy)));
        continue;
      } catch (error) {
        const summary = error instanceof GatewayError ? error : new GatewayError(502, 'invalid_provider_response', 'Bedrock answered a record gw could not read');
        errors.push(batchResultLine(line.custom_id, requestId, summary.status, { error: { message: summary.message, type: 'upstream_error', code: summary.code } }));
        continue;
      }
    }
    const status = typeof failure?.errorCode === 'number' && failure.errorCode >= 400 ? failure.errorCode : 500;
    const message = typeof failure?.errorMessage === 'string' ? failure.errorMessage : 'Bedrock recorded no output for this request';
    errors.push(batchResultLine(line.custom_id, requestId, status, { error: { message, type: status < 500 ? 'invalid_request_error' : 'upstream_error', code: 'bedrock_record_failed' } }));
  }
  return { output: resultLines(output), errors: resultLines(errors) };
}

/** Bedrock's job status → OpenAI's batch status. */
const STATUS: Record<string, string> = {
  Submitted: 'validating',
  Validating: 'validating',
  Scheduled: 'validating',
  InProgress: 'in_progress',
  Completed: 'completed',
  // Some records failed: they are in the error file, as in an OpenAI batch that completed with failures.
  PartiallyCompleted: 'completed',
  Failed: 'failed',
  Stopping: 'cancelling',
  Stopped: 'cancelled',
  Expired: 'expired',
};

/**
 * GetModelInvocationJob's answer as OpenAI's batch object (`id` is the job's ARN), with what reading the results
 * later needs: the job's output location and id. `counts` come from the job's manifest once it has ended.
 */
export function bedrockJobView(job: Record<string, unknown>, counts?: Record<string, unknown>): Record<string, unknown> {
  const bedrockStatus = typeof job.status === 'string' ? job.status : 'Submitted';
  const jobArn = String(job.jobArn);
  const output = (job.outputDataConfig as { s3OutputDataConfig?: { s3Uri?: unknown } } | undefined)?.s3OutputDataConfig?.s3Uri;
  const count = (name: string) => (typeof counts?.[name] === 'number' ? counts[name] : 0);
  return jobView({
    id: jobArn,
    status: STATUS[bedrockStatus] ?? 'in_progress',
    createdAt: job.submitTime as string | undefined,
    endedAt: job.endTime as string | undefined,
    updatedAt: job.lastModifiedTime as string | undefined,
    failure: { code: 'bedrock_job_failed', message: job.message },
    requestCounts: counts ? { total: count('totalRecordCount'), completed: count('successRecordCount'), failed: count('errorRecordCount') } : undefined,
    internal: {
      model: typeof job.modelId === 'string' ? job.modelId : undefined,
      bedrock_status: bedrockStatus,
      job_id: jobArn.slice(jobArn.lastIndexOf('/') + 1),
      output_uri: typeof output === 'string' ? output : undefined,
      expires_at: seconds(job.jobExpirationTime) ?? null,
    },
  });
}
