import { GatewayError } from '../../http/errors.js';
import { ChunkFactory, nowSeconds } from '../common/chunks.js';
import { providerErrorMessage } from '../common/error-message.js';
import { isRecord, numberField, stringField } from '../common/json-guards.js';
import { openAIUsage } from '../common/usage.js';
import type { ProviderErrorSummary, StreamEvent, StreamTranslator } from '../types.js';

/**
 * A prediction answered with `Prefer: wait`: `succeeded` with `output` (a list of text pieces, or one string) and
 * `metrics.input_token_count` / `output_token_count`; `failed` / `canceled` with `error`; `starting` / `processing`
 * when the model took longer than the wait (then gw answers 504 naming the prediction, never a fake empty reply).
 */
export interface PredictionResult {
  id: string;
  text: string;
  usage?: ReturnType<typeof openAIUsage>;
}

export function readPrediction(answer: unknown): PredictionResult {
  const body = isRecord(answer) ? answer : {};
  const id = stringField(body, 'id') ?? '';
  const status = stringField(body, 'status');
  if (status === 'failed' || status === 'canceled') {
    throw new GatewayError(502, `prediction_${status}`, `The Replicate prediction ${id} ${status}: ${stringField(body, 'error') ?? 'no reason given'}`, { type: 'upstream_error', upstream: true });
  }
  if (status !== 'succeeded') {
    // Not marked upstream, so no retry policy repeats it: the prediction keeps running (and billing) at Replicate,
    // and a retry would start a second one.
    const getUrl = isRecord(body.urls) ? stringField(body.urls, 'get') : undefined;
    throw new GatewayError(504, 'prediction_pending', `The Replicate prediction ${id} was still ${status ?? 'running'} when the wait ended; read it at ${getUrl ?? 'its get URL'}`, { type: 'upstream_error' });
  }
  const output = body.output;
  const text = Array.isArray(output) ? output.map((piece) => (typeof piece === 'string' ? piece : '')).join('') : typeof output === 'string' ? output : '';
  const metrics = isRecord(body.metrics) ? body.metrics : {};
  const input = numberField(metrics, 'input_token_count');
  const outputTokens = numberField(metrics, 'output_token_count');
  return { id, text, usage: input !== undefined && outputTokens !== undefined ? openAIUsage({ promptTokens: input, completionTokens: outputTokens }) : undefined };
}

export function toChatCompletion(model: unknown, answer: unknown): Record<string, unknown> {
  const prediction = readPrediction(answer);
  return {
    id: `chatcmpl-${prediction.id}`,
    object: 'chat.completion',
    created: nowSeconds(),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: prediction.text }, logprobs: null, finish_reason: 'stop' }],
    ...(prediction.usage ? { usage: prediction.usage } : {}),
  };
}

/**
 * A streamed chat call is the same blocking prediction: its JSON is read whole and given to the client as one
 * content chunk, the finish and the usage, so streaming clients work and usage is metered. (Replicate's own SSE
 * stream needs a second request to the prediction's stream URL.)
 */
export class PredictionStreamTranslator implements StreamTranslator {
  private readonly parts: Uint8Array[] = [];

  constructor(private readonly model: string) {}

  push(bytes: Uint8Array): StreamEvent[] {
    this.parts.push(bytes);
    return [];
  }

  end(): StreamEvent[] {
    let prediction: PredictionResult;
    try {
      prediction = readPrediction(JSON.parse(Buffer.concat(this.parts).toString('utf8')));
    } catch (error) {
      const known = error instanceof GatewayError ? error : undefined;
      return [{ type: 'error', status: known?.status ?? 502, error: { message: known?.message ?? 'Replicate answered with a body that is not a prediction', code: known?.code ?? 'upstream_invalid_response', type: 'upstream_error' } }];
    }
    const chunks = new ChunkFactory(`chatcmpl-${prediction.id}`, this.model);
    const events: StreamEvent[] = [chunks.role(), chunks.content(prediction.text), chunks.finish('stop')].map((chunk) => ({ type: 'chunk', chunk }));
    if (prediction.usage) events.push({ type: 'chunk', chunk: chunks.usage(prediction.usage) });
    events.push({ type: 'done' });
    return events;
  }
}

/** Replicate errors are problem details: `{"title", "detail", "status"}` (or `{"detail"}` alone). */
export function summariseReplicateError(status: number, body: unknown): ProviderErrorSummary {
  const record = isRecord(body) ? body : {};
  const message = providerErrorMessage('Replicate', status, body, ['detail', 'title']);
  const title = stringField(record, 'title');
  return { message, code: title ? title.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, '') : `http_${status}`, param: null };
}
