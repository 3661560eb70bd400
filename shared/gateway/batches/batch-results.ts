import { randomUUID } from 'node:crypto';
import { isoTime } from '../../iso-time.js';
import { merged } from '../../merged.js';
import { runInBackground } from '../../observability/background.js';
import { recordHead } from '../../observability/log-record.js';
import { requestLogger } from '../../observability/logger.js';
import { costOfUsage, sumUsd } from '../../observability/pricing/index.js';
import { recordFinishedRequest, type FinishedRequest } from '../../observability/request-record.js';
import { newSpanId } from '../../observability/spans.js';
import { normaliseUsage, type NormalisedUsage } from '../../observability/usage.js';
import { BatchRepository, newTimeOrderedId, type BatchRecord, type BatchResultProblem, type BatchUsage } from '../../store/batch-repository.js';
import { blobStore } from '../../store/blobs/blob-store-factory.js';
import { settleUsage } from '../enforcement/settlement.js';
import type { BatchTarget } from './caller.js';
import { storeFile } from './file-records.js';
import { parseBatchInput, type BatchInputLine } from './jsonl.js';
import { checkResults, type CheckedResults } from './result-check.js';
import { endpointOf, admissionOf } from './reservation.js';
import { TERMINAL_STATUSES } from './views.js';

/**
 * What a provider charges for a batched request against its standard price: OpenAI, Azure OpenAI (global batch),
 * Bedrock (batch inference, for the models that offer it) and Vertex AI (Gemini batch prediction) bill batches at
 * half price. The standard price
 * comes from gw's pricing chain.
 */
export const BATCH_PRICE_FACTOR: Readonly<Record<string, number>> = { openai: 0.5, 'azure-openai': 0.5, bedrock: 0.5, 'vertex-ai': 0.5 };

/** Reads the provider's batch now and takes in what changed (see `takeProviderView`). */
export async function refreshBatch(record: BatchRecord, target: BatchTarget, repository: BatchRepository, signal?: AbortSignal): Promise<BatchRecord> {
  const providerBatch = await target.driver.retrieve(record.provider_batch_id, signal);
  return takeProviderView(record, providerBatch, target, repository, signal);
}

/**
 * Keeps the provider's latest batch object on the record; once the batch has ended (completed, failed, expired,
 * cancelled) and nobody settled it yet, its results are read (settleBatch).
 */
export async function takeProviderView(record: BatchRecord, providerBatch: Record<string, unknown>, target: BatchTarget, repository: BatchRepository, signal?: AbortSignal): Promise<BatchRecord> {
  const status = typeof providerBatch.status === 'string' ? providerBatch.status : record.status;
  await repository.updateBatch(record.workspace_id, record.id, { status, provider_view: providerBatch });
  const updated: BatchRecord = merged(record, { status, provider_view: providerBatch });
  if (!TERMINAL_STATUSES.has(status) || updated.settled_at !== undefined) return updated;
  return settleBatch(updated, target, repository, signal);
}

/**
 * The results of an ended batch, read once (a conditional claim: of two polls, one does it): the provider's
 * output and error files copied into gw's files, each result line logged as a request of the batch's trace
 * (priced at the batch price), and the batch's reservation settled with the sum. Reading a file failing gives the
 * claim back, so the next poll tries again; nothing was charged by then.
 */
async function settleBatch(record: BatchRecord, target: BatchTarget, repository: BatchRepository, signal?: AbortSignal): Promise<BatchRecord> {
  const now = Math.floor(Date.now() / 1000);
  if (!(await repository.claimSettlement(record.workspace_id, record.id, now))) return (await repository.getBatch(record.workspace_id, record.id)) ?? record;
  // Checked before anything is charged or logged: a faulty line is charged at most once and never lost silently.
  let outputId: string | undefined;
  let errorsId: string | undefined;
  let checked: CheckedResults;
  const input = await inputLines(record);
  try {
    const files = await target.driver.results(record.provider_view, input, signal);
    checked = checkResults(input, files, record.status);
    outputId = await keepResultFile(record, 'output', files.output, repository);
    errorsId = await keepResultFile(record, 'errors', checked.errors, repository);
  } catch (error) {
    await repository.releaseSettlement(record.workspace_id, record.id).catch(() => undefined);
    throw error;
  }
  const priced = await Promise.all(checked.lines.map((line) => priceLine(record, line)));
  const cost = priced.some((line) => line.usage !== undefined && line.cost === null) ? null : sumUsd(priced.map((line) => line.cost ?? 0));
  const log = requestLogger(record.trace_id);
  const usage = summedUsage(priced);
  await settleUsage(admissionOf(record.holdings), { usage, cacheHit: false, provider: record.provider, model: record.model, cost }, log);
  const inputs = new Map(input.map((line) => [line.custom_id, line.body]));
  runInBackground('batch result logs', () => Promise.all(priced.map((line) => recordFinishedRequest(resultRecord(record, line, inputs.get(line.customId))))));
  const settled: { output_file_id?: string; error_file_id?: string; cost: number | null; usage: BatchUsage; result_problems?: BatchResultProblem[] } = { output_file_id: outputId, error_file_id: errorsId, cost, usage: batchUsage(usage) };
  if (checked.problems.length > 0) {
    settled.result_problems = checked.problems;
    log.warn('batch results with problems', { batch_id: record.id, problems: checked.problems.map((problem) => problem.code) });
  }
  await repository.recordSettlement(record.workspace_id, record.id, settled);
  return merged(record, settled, { settled_at: now, holdings: undefined });
}

/** A results file of the batch, kept as a gw file of its workspace (purpose `batch_output`): its id. */
async function keepResultFile(record: BatchRecord, kind: 'output' | 'errors', bytes: Buffer | undefined, repository: BatchRepository): Promise<string | undefined> {
  if (bytes === undefined) return undefined;
  const stored = await storeFile(
    repository,
    { id: newTimeOrderedId('file'), workspace_id: record.workspace_id, filename: `${record.id}_${kind}.jsonl`, purpose: 'batch_output', bytes: bytes.length, created_at: Math.floor(Date.now() / 1000), batch_id: record.id },
    bytes,
  );
  return stored.id;
}

interface PricedLine {
  customId: string;
  status: number;
  usage?: NormalisedUsage;
  cost: number | null;
  body: unknown;
  error?: { type: string | null; code: string | null; message: string | null };
}

/** One result line: its status, usage and cost at the batch price (null when the model has no price). */
async function priceLine(record: BatchRecord, line: Record<string, unknown>): Promise<PricedLine> {
  const response = (line.response ?? {}) as { status_code?: unknown; body?: unknown };
  const body = (response.body ?? null) as Record<string, unknown> | null;
  const status = typeof response.status_code === 'number' ? response.status_code : 500;
  const rawUsage = body && typeof body.usage === 'object' && body.usage !== null ? (body.usage as Record<string, unknown>) : undefined;
  const usage = normaliseUsage(rawUsage);
  const standard = rawUsage ? await costOfUsage(record.provider, record.model, rawUsage) : 0;
  const factor = BATCH_PRICE_FACTOR[record.provider] ?? 1;
  const cost = standard === null ? null : Math.round(standard * factor * 1e10) / 1e10;
  const failure = (line.error ?? (body && typeof body.error === 'object' ? body.error : undefined)) as { type?: unknown; code?: unknown; message?: unknown } | null | undefined;
  const errored = status >= 400 || (failure !== null && failure !== undefined);
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  return {
    customId: typeof line.custom_id === 'string' ? line.custom_id : '',
    status: errored && status < 400 ? 500 : status,
    usage,
    cost,
    body,
    error: errored ? { type: text(failure?.type), code: text(failure?.code), message: text(failure?.message) } : undefined,
  };
}

/** The summed usage in the batch object's `usage` shape (OpenAI's BatchUsage), the same for every provider. */
function batchUsage(usage: ReturnType<typeof summedUsage>): BatchUsage {
  return {
    input_tokens: usage.prompt_tokens,
    output_tokens: usage.completion_tokens,
    total_tokens: usage.total_tokens,
    input_tokens_details: { cached_tokens: usage.prompt_tokens_details.cached_tokens },
    output_tokens_details: { reasoning_tokens: usage.completion_tokens_details.reasoning_tokens },
  };
}

function summedUsage(lines: readonly PricedLine[]) {
  const total = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, cached_tokens: 0, reasoning_tokens: 0 };
  for (const { usage } of lines) {
    if (!usage) continue;
    for (const key of Object.keys(total) as Array<keyof typeof total>) total[key] += usage[key];
  }
  return {
    prompt_tokens: total.prompt_tokens,
    completion_tokens: total.completion_tokens,
    total_tokens: total.total_tokens,
    prompt_tokens_details: { cached_tokens: total.cached_tokens },
    completion_tokens_details: { reasoning_tokens: total.reasoning_tokens },
  };
}

/**
 * The batch's input lines: the logs' request bodies, and how a translated provider's record ids name their lines.
 * None when the input file was deleted since (the logs then lose their bodies).
 */
async function inputLines(record: BatchRecord): Promise<BatchInputLine[]> {
  const file = await new BatchRepository().getFile(record.workspace_id, record.input_file_id).catch(() => undefined);
  const bytes = file ? await blobStore().get(file.blob_key).catch(() => undefined) : undefined;
  if (!bytes) return [];
  try {
    return parseBatchInput(bytes);
  } catch {
    // The input was checked when the batch was created; a file changed since then only loses its bodies here.
    return [];
  }
}

/** A result line as a request-log record: the batch's trace, caller and virtual key; `batch_id` and `custom_id` in its metadata. */
function resultRecord(record: BatchRecord, line: PricedLine, requestBody: Record<string, unknown> | undefined): FinishedRequest {
  const caller = { organisationId: record.organisation_id, workspaceId: record.workspace_id, keyId: record.api_key_id };
  return {
    virtual_key_id: record.virtual_key_id ?? null,
    endpoint: endpointOf(record.endpoint),
    provider: record.provider,
    model: record.model,
    status: line.status,
    latency_ms: 0,
    ttft_ms: null,
    usage: line.usage ?? null,
    cost: line.cost,
    cache_status: null,
    retry_count: 0,
    last_used_option: null,
    metadata: merged(record.metadata, { batch_id: record.id, custom_id: line.customId }),
    error: line.error ?? null,
    error_code: line.error?.code ?? undefined,
    stream: false,
    outcome: line.error ? 'error' : 'success',
    attempts: [],
    spans: [],
    requestBody,
    responseBody: line.body === null ? undefined : JSON.stringify(line.body),
    ...recordHead(randomUUID(), record.trace_id, newSpanId(), isoTime(Date.now()), caller),
  };
}
