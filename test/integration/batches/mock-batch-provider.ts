import type { MockHandler, RecordedRequest, ScriptedResponse } from '../../support/mock-upstream.js';

/** Usage the mock reports for every successful line. */
export const LINE_USAGE = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };

interface MockBatch {
  id: string;
  input_file_id: string;
  endpoint: string;
  status: string;
  polls: number;
  output_file_id?: string;
  error_file_id?: string;
}

/**
 * Upstream faults to script: the next N batch reads (GET /batches/{id}) or file content reads answer 500; the next
 * N creates, reads or content reads answer only after `slowMs` (past gw's timeout: what they answer is never read).
 */
interface MockFaults {
  failPolls: number;
  failContentReads: number;
  slowCreates: number;
  slowPolls: number;
  slowContentReads: number;
  slowMs: number;
}

/**
 * An OpenAI-style Files and Batch API as a real HTTP server's handler, under `/v1` (OpenAI) or `/openai`
 * (Azure OpenAI). A batch advances one step per GET: validating → in_progress → completed, its output holding a
 * chat completion per line (LINE_USAGE) and its error file every line whose custom_id starts with `fail`.
 * A cancelled batch ends `cancelled` on the next GET with no output. Output faults by custom_id: `lost…` gets no
 * result line, `dup…` two, `garbled…` a line cut short.
 */
export function batchProviderMock(): { handler: MockHandler; files: Map<string, string>; batches: Map<string, MockBatch>; failCreate: { status?: number }; faults: MockFaults } {
  const files = new Map<string, string>();
  const batches = new Map<string, MockBatch>();
  const failCreate: { status?: number } = {};
  const faults: MockFaults = { failPolls: 0, failContentReads: 0, slowCreates: 0, slowPolls: 0, slowContentReads: 0, slowMs: 0 };
  /** The answer, held `slowMs` when a slow-call counter says so (a provider slower than gw's timeout). */
  const maybeSlow = (counter: 'slowCreates' | 'slowPolls' | 'slowContentReads', answer: ScriptedResponse): ScriptedResponse => {
    if (faults[counter] === 0) return answer;
    faults[counter]--;
    return { ...answer, delayMs: faults.slowMs };
  };
  let next = 0;
  const handler: MockHandler = async (request: RecordedRequest): Promise<ScriptedResponse> => {
    const path = request.path.replace(/^\/(v1|openai)/, '');
    if (request.method === 'POST' && path === '/files') {
      const form = await new Response(request.body, { headers: { 'content-type': String(request.headers['content-type']) } }).formData();
      const file = form.get('file') as Blob;
      const id = `file-provider-${++next}`;
      files.set(id, await file.text());
      return { json: { id, object: 'file', purpose: form.get('purpose'), bytes: file.size } };
    }
    const content = /^\/files\/([^/]+)\/content$/.exec(path);
    if (request.method === 'GET' && content) {
      if (faults.failContentReads > 0) {
        faults.failContentReads--;
        return { status: 500, json: { error: { message: 'file service unavailable', type: 'server_error', code: null } } };
      }
      const text = files.get(content[1]);
      if (faults.slowContentReads > 0) return maybeSlow('slowContentReads', { status: 500, json: { error: { message: 'too late', type: 'server_error', code: null } } });
      return text === undefined ? { status: 404, json: { error: { message: 'No such file', type: 'invalid_request_error', code: null } } } : { headers: { 'content-type': 'application/octet-stream' }, json: undefined, chunks: [text] };
    }
    if (request.method === 'POST' && path === '/batches') {
      if (failCreate.status) return { status: failCreate.status, json: { error: { message: 'batch service unavailable', type: 'server_error', code: null } } };
      if (faults.slowCreates > 0) return maybeSlow('slowCreates', { status: 500, json: { error: { message: 'too late', type: 'server_error', code: null } } });
      const body = request.json as { input_file_id: string; endpoint: string };
      const batch: MockBatch = { id: `batch_provider_${++next}`, input_file_id: body.input_file_id, endpoint: body.endpoint, status: 'validating', polls: 0 };
      batches.set(batch.id, batch);
      return { json: view(batch) };
    }
    const cancel = /^\/batches\/([^/]+)\/cancel$/.exec(path);
    if (request.method === 'POST' && cancel) {
      const batch = batches.get(cancel[1])!;
      batch.status = 'cancelling';
      return { json: view(batch) };
    }
    const get = /^\/batches\/([^/]+)$/.exec(path);
    if (request.method === 'GET' && get) {
      if (faults.failPolls > 0) {
        faults.failPolls--;
        return { status: 500, json: { error: { message: 'batch service unavailable', type: 'server_error', code: null } } };
      }
      if (faults.slowPolls > 0) return maybeSlow('slowPolls', { status: 500, json: { error: { message: 'too late', type: 'server_error', code: null } } });
      const batch = batches.get(get[1]);
      if (!batch) return { status: 404, json: { error: { message: 'No such batch', type: 'invalid_request_error', code: null } } };
      advance(batch);
      return { json: view(batch) };
    }
    return { status: 404, json: { error: { message: `mock: no route ${request.method} ${request.path}`, type: 'invalid_request_error', code: null } } };
  };

  function advance(batch: MockBatch): void {
    batch.polls++;
    if (batch.status === 'cancelling') batch.status = 'cancelled';
    else if (batch.status === 'validating') batch.status = 'in_progress';
    else if (batch.status === 'in_progress') complete(batch);
  }

  function complete(batch: MockBatch): void {
    const lines = files.get(batch.input_file_id)!.trim().split('\n').map((line) => JSON.parse(line) as { custom_id: string; body: { model: string } });
    const ok = lines.filter((line) => !line.custom_id.startsWith('fail'));
    const failed = lines.filter((line) => line.custom_id.startsWith('fail'));
    batch.output_file_id = `file-provider-${++next}`;
    // Faulty output as a provider might write it: `lost…` lines have no result, `dup…` two, `garbled…` a cut one.
    const output = ok.flatMap((line, index) => {
      if (line.custom_id.startsWith('lost')) return [];
      const text = JSON.stringify({ id: `batch_req_${index}`, custom_id: line.custom_id, response: { status_code: 200, request_id: `req_${index}`, body: completion(line.body.model) }, error: null });
      if (line.custom_id.startsWith('dup')) return [text, text];
      return [line.custom_id.startsWith('garbled') ? text.slice(0, 40) : text];
    });
    files.set(batch.output_file_id, output.join('\n') + '\n');
    if (failed.length > 0) {
      batch.error_file_id = `file-provider-${++next}`;
      const error = { message: 'Invalid value for max_tokens', type: 'invalid_request_error', code: 'invalid_value', param: 'max_tokens' };
      files.set(batch.error_file_id, failed.map((line) => JSON.stringify({ id: 'batch_req_err', custom_id: line.custom_id, response: { status_code: 400, request_id: 'req_err', body: { error } }, error: null })).join('\n') + '\n');
    }
    batch.status = 'completed';
  }

  function view(batch: MockBatch): Record<string, unknown> {
    const total = files.get(batch.input_file_id)?.trim().split('\n').length ?? 0;
    const done = batch.status === 'completed';
    return {
      id: batch.id,
      object: 'batch',
      endpoint: batch.endpoint,
      input_file_id: batch.input_file_id,
      completion_window: '24h',
      status: batch.status,
      output_file_id: batch.output_file_id ?? null,
      error_file_id: batch.error_file_id ?? null,
      created_at: 1_700_000_000,
      in_progress_at: batch.polls > 0 ? 1_700_000_010 : null,
      completed_at: done ? 1_700_000_100 : null,
      request_counts: { total, completed: done ? total : 0, failed: 0 },
      errors: null,
    };
  }

  return { handler, files, batches, failCreate, faults };
}

function completion(model: string) {
  return {
    id: 'chatcmpl-batch',
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: 'Batched hello' }, finish_reason: 'stop' }],
    usage: LINE_USAGE,
  };
}
