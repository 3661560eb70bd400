import type { BatchRecord, BatchResultProblem, FileRecord } from '../../store/batch-repository.js';

/** OpenAI's file object. */
export function fileView(record: FileRecord): Record<string, unknown> {
  return { id: record.id, object: 'file', bytes: record.bytes, created_at: record.created_at, filename: record.filename, purpose: record.purpose, status: record.status ?? 'processed', status_details: null };
}

/** The fields of the provider's batch object gw passes on as they are: its times, counts and errors. */
const PROVIDER_FIELDS = ['in_progress_at', 'expires_at', 'finalizing_at', 'completed_at', 'failed_at', 'expired_at', 'cancelling_at', 'cancelled_at', 'request_counts', 'errors'] as const;

/**
 * OpenAI's batch object with gw's ids: the batch's, its input file's, and (once gw read the results) the output
 * and error files gw holds. The provider's own ids are never shown: every read goes through gw.
 */
export function batchView(record: BatchRecord): Record<string, unknown> {
  const view: Record<string, unknown> = {
    id: record.id,
    object: 'batch',
    endpoint: record.endpoint,
    model: record.model,
    errors: null,
    input_file_id: record.input_file_id,
    completion_window: record.completion_window,
    status: shownStatus(record),
    output_file_id: record.output_file_id ?? null,
    error_file_id: record.error_file_id ?? null,
    created_at: record.created_at,
    in_progress_at: null,
    expires_at: null,
    finalizing_at: null,
    completed_at: null,
    failed_at: null,
    expired_at: null,
    cancelling_at: null,
    cancelled_at: null,
    request_counts: { total: 0, completed: 0, failed: 0 },
    metadata: record.metadata,
    provider: record.provider,
  };
  for (const field of PROVIDER_FIELDS) if (record.provider_view[field] !== undefined) view[field] = record.provider_view[field];
  // gw's own sum of the lines it read (the provider's, where it reports one, is not passed on: one shape for all).
  if (record.usage !== undefined) view.usage = record.usage;
  if (record.result_problems?.length) view.errors = withResultProblems(view.errors, record.result_problems);
  return view;
}

/** The provider's `errors` list with gw's own findings about its result files after it (OpenAI's entry shape). */
function withResultProblems(errors: unknown, problems: readonly BatchResultProblem[]): Record<string, unknown> {
  const listed = typeof errors === 'object' && errors !== null && Array.isArray((errors as { data?: unknown }).data) ? ((errors as { data: unknown[] }).data) : [];
  return { object: 'list', data: [...listed, ...problems.map((problem) => ({ code: problem.code, message: problem.message, param: null, line: problem.line }))] };
}

/** A batch the provider finished is `finalizing` at gw until its results are read and charged, then the provider's word. */
function shownStatus(record: BatchRecord): string {
  return TERMINAL_STATUSES.has(record.status) && record.settled_at === undefined ? 'finalizing' : record.status;
}

export const TERMINAL_STATUSES: ReadonlySet<string> = new Set(['completed', 'failed', 'expired', 'cancelled']);

/** OpenAI's list envelope. */
export function listView(data: Array<Record<string, unknown>>, hasMore: boolean): Record<string, unknown> {
  return { object: 'list', data, first_id: (data[0]?.id as string | undefined) ?? null, last_id: (data.at(-1)?.id as string | undefined) ?? null, has_more: hasMore };
}
