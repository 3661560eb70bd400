import { badRequest } from '../../http/errors.js';
import { BATCH_ENDPOINTS, type BatchEndpoint, type BatchInputLine } from './providers/types.js';

export type { BatchInputLine };

/** OpenAI's own limit on the requests of one batch. */
export const MAX_BATCH_LINES = 50_000;

/**
 * The requests of a batch input file, checked line by line before anything is stored or sent: JSON objects with
 * a unique `custom_id`, `method: POST`, a `url` gw batches and a `body` object. A bad line is a 400 naming it.
 */
export function parseBatchInput(bytes: Uint8Array): BatchInputLine[] {
  const text = Buffer.from(bytes).toString('utf8');
  const lines: BatchInputLine[] = [];
  const seen = new Set<string>();
  const rows = text.split('\n');
  for (const [index, raw] of rows.entries()) {
    if (raw.trim() === '') continue;
    const where = `line ${index + 1}`;
    if (lines.length === MAX_BATCH_LINES) throw badRequest('invalid_batch_file', `A batch input file holds at most ${MAX_BATCH_LINES} requests`, 'file');
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw badRequest('invalid_batch_file', `${where} of the batch input file is not JSON`, 'file');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw badRequest('invalid_batch_file', `${where} of the batch input file is not a JSON object`, 'file');
    const line = parsed as Record<string, unknown>;
    if (typeof line.custom_id !== 'string' || line.custom_id === '') throw badRequest('invalid_batch_file', `${where}: custom_id must be a non-empty string`, 'file');
    if (seen.has(line.custom_id)) throw badRequest('invalid_batch_file', `${where}: custom_id '${line.custom_id}' is used twice`, 'file');
    seen.add(line.custom_id);
    if (line.method !== 'POST') throw badRequest('invalid_batch_file', `${where}: method must be POST`, 'file');
    if (!(BATCH_ENDPOINTS as readonly unknown[]).includes(line.url)) throw badRequest('invalid_batch_file', `${where}: url must be one of ${BATCH_ENDPOINTS.join(', ')}`, 'file');
    if (typeof line.body !== 'object' || line.body === null || Array.isArray(line.body)) throw badRequest('invalid_batch_file', `${where}: body must be a JSON object`, 'file');
    lines.push({ custom_id: line.custom_id, method: 'POST', url: line.url as BatchEndpoint, body: line.body as Record<string, unknown> });
  }
  if (lines.length === 0) throw badRequest('invalid_batch_file', 'The batch input file holds no request', 'file');
  return lines;
}

/** The file as a provider takes it: each line's url in the provider's form (Azure drops `/v1`). */
export function serialiseBatchInput(lines: readonly BatchInputLine[], urlOf: (endpoint: BatchEndpoint) => string): Buffer {
  return Buffer.from(lines.map((line) => JSON.stringify({ custom_id: line.custom_id, method: line.method, url: urlOf(line.url), body: line.body })).join('\n') + '\n');
}

/** The JSON objects of a results file (output or error lines); lines that are not JSON objects are skipped. */
export function parseResultLines(bytes: Uint8Array): Array<Record<string, unknown>> {
  const results: Array<Record<string, unknown>> = [];
  for (const raw of Buffer.from(bytes).toString('utf8').split('\n')) {
    if (raw.trim() === '') continue;
    try {
      const parsed = JSON.parse(raw) as unknown;
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) results.push(parsed as Record<string, unknown>);
    } catch {
      // A provider's broken line cannot be logged as a request; the file keeps it for the client to see.
    }
  }
  return results;
}

/** One line of OpenAI's batch output format: the request's custom_id, and the answer's status and body. */
export function batchResultLine(customId: string, requestId: string, status: number, body: unknown): Record<string, unknown> {
  return { id: `batch_req_${requestId}`, custom_id: customId, response: { status_code: status, request_id: requestId, body }, error: null };
}

/** Lines as a JSONL file, or undefined when there are none (no file, as OpenAI leaves `error_file_id` null). */
export function resultLines(lines: ReadonlyArray<Record<string, unknown>>): Buffer | undefined {
  return lines.length === 0 ? undefined : Buffer.from(lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
}
