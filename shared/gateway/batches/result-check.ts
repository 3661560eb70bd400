import type { BatchResultProblem } from '../../store/batch-repository.js';
import type { BatchInputLine } from './jsonl.js';
import type { BatchResultFiles } from './providers/types.js';

/** At most this many problems are kept on the batch record (the first ones; a summary counts the rest). */
const MAX_PROBLEMS = 20;

/** What gw logs and charges of an ended batch, and what it could not. */
export interface CheckedResults {
  /** The result lines logged and charged: each names a request once. */
  lines: Array<Record<string, unknown>>;
  /** The error file gw keeps: the provider's, then a line for each request without any result. */
  errors?: Buffer;
  /** Shown in the batch's `errors` beside the provider's. */
  problems: BatchResultProblem[];
}

/**
 * Reads a provider's result files the way gw charges them, so a faulty file neither charges a request twice nor
 * loses one silently:
 * - a line that is not a JSON object with a `custom_id` stays in the file (the client sees it) but cannot be
 *   logged or priced: it becomes a problem naming its line (`invalid_result_line`);
 * - a second result for the same `custom_id` (in either file) is not logged or charged again
 *   (`duplicate_result_line`);
 * - a request of the input with no result at all, in a batch that `completed` or `expired`, gets a line of gw's
 *   error file (`batch_result_missing`, or `batch_expired` as OpenAI names the requests an expired batch did not
 *   run), which is logged as a failed request, and one problem counts them (`missing_results`). A cancelled or
 *   failed batch did not run what it did not finish: nothing is added. Without the input (its file deleted since)
 *   nothing can be matched, and nothing is added.
 */
export function checkResults(input: readonly BatchInputLine[], files: BatchResultFiles, status: string): CheckedResults {
  const problems: BatchResultProblem[] = [];
  const seen = new Set<string>();
  const lines: Array<Record<string, unknown>> = [];
  for (const [name, bytes] of [['output', files.output], ['error', files.errors]] as const) {
    if (bytes === undefined) continue;
    for (const [index, raw] of Buffer.from(bytes).toString('utf8').split('\n').entries()) {
      if (raw.trim() === '') continue;
      const line = parsedObject(raw);
      const where = `line ${index + 1} of the provider's ${name} file`;
      if (!line || typeof line.custom_id !== 'string' || line.custom_id === '') {
        problems.push({ code: 'invalid_result_line', message: `${where} is not a result line (a JSON object with a custom_id): kept in the file, not logged or charged`, line: index + 1 });
        continue;
      }
      if (seen.has(line.custom_id)) {
        problems.push({ code: 'duplicate_result_line', message: `${where} is a second result for custom_id '${line.custom_id}': only the first is logged and charged`, line: index + 1 });
        continue;
      }
      seen.add(line.custom_id);
      lines.push(line);
    }
  }
  const missing = status === 'completed' || status === 'expired' ? input.filter((line) => !seen.has(line.custom_id)) : [];
  const added = missing.map((line, index) => missingResult(line.custom_id, index, status));
  if (missing.length > 0) {
    problems.push({
      code: 'missing_results',
      message: `${missing.length} request(s) of the input have no result in the provider's files (first: '${missing[0].custom_id}'): each is a line of the error file with code ${added[0].error.code}`,
      line: null,
    });
  }
  lines.push(...added);
  const errors = added.length === 0 ? files.errors : Buffer.concat([files.errors ?? Buffer.alloc(0), Buffer.from(added.map((line) => JSON.stringify(line)).join('\n') + '\n')]);
  return { lines, errors, problems: capped(problems) };
}

/** An error line in OpenAI's batch output format for a request the provider gave no result for. */
function missingResult(customId: string, index: number, status: string) {
  const expired = status === 'expired';
  return {
    id: `batch_req_gw_missing_${index}`,
    custom_id: customId,
    response: null,
    error: expired
      ? { code: 'batch_expired', message: 'This request could not be executed before the completion window expired.' }
      : { code: 'batch_result_missing', message: "The provider's result files hold no result for this request." },
  };
}

function parsedObject(raw: string): Record<string, unknown> | undefined {
  try {
    const parsed = JSON.parse(raw) as unknown;
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The first problems, and one more saying how many were left out: the record stays small. */
function capped(problems: BatchResultProblem[]): BatchResultProblem[] {
  if (problems.length <= MAX_PROBLEMS) return problems;
  const kept = problems.slice(0, MAX_PROBLEMS - 1);
  return [...kept, { code: 'more_result_problems', message: `${problems.length - kept.length} more problems with the provider's result files are not listed`, line: null }];
}
