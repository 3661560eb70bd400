import { describe, expect, it } from 'vitest';
import type { TargetSettings } from '../../../../shared/providers/types.js';
import { summariseVertexError, vertexAIAdapter } from '../../../../shared/providers/vertex-ai/adapter.js';
import { adapterInput, asyncGatewayErrorOf, fixtureJson } from '../google/helpers.js';

const target = (extra: Partial<TargetSettings> = {}): Partial<TargetSettings> => ({
  provider: 'vertex-ai',
  apiKey: 'ya29.access-token',
  vertex: { projectId: 'my-project', region: 'europe-west4' },
  ...extra,
});

describe('Vertex AI calls', () => {
  it('sends Gemini chat as generateContent with the access token as a Bearer header', async () => {
    const call = await vertexAIAdapter.buildCall(adapterInput({ model: 'gemini-2.5-pro', messages: [{ role: 'user', content: 'Hi' }], temperature: 0.1 }, { target: target() }));
    expect(call.headers.authorization).toBe('Bearer ya29.access-token');
    expect(call.headers['x-goog-api-key']).toBeUndefined();
    expect(JSON.parse(String(call.body))).toEqual({ contents: [{ role: 'user', parts: [{ text: 'Hi' }] }], generationConfig: { temperature: 0.1 } });
  });

  it('sends Claude as an Anthropic Messages body without the model, with the Vertex API version and betas', async () => {
    const input = adapterInput(
      { model: 'claude-sonnet-4@20250514', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }], max_tokens: 100 },
      { stream: true, target: target({ anthropicBeta: 'context-1m-2025-08-07, output-128k-2025-02-19' }) },
    );
    const call = await vertexAIAdapter.buildCall(input);
    const body = JSON.parse(String(call.body)) as Record<string, unknown>;
    expect(body.model).toBeUndefined();
    expect(body).toMatchObject({
      anthropic_version: 'vertex-2023-10-16',
      anthropic_beta: ['context-1m-2025-08-07', 'output-128k-2025-02-19'],
      max_tokens: 100,
      stream: true,
      messages: [{ role: 'user' }],
    });
    expect(JSON.stringify(body.messages)).toContain('Hi');
    expect(JSON.stringify(body.system)).toContain('Be brief.');
    expect(call.url).toMatch(/\/publishers\/anthropic\/models\/claude-sonnet-4@20250514:streamRawPredict$/);
    expect(call.headers['anthropic-version']).toBeUndefined();
  });

  it('translates a Claude message and a Gemini response with the matching codec', () => {
    const claude = adapterInput({ model: 'claude-sonnet-4@20250514', messages: [{ role: 'user', content: 'Hi' }] }, { target: target() });
    const message = {
      id: 'msg_vrtx_01',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-20250514',
      content: [{ type: 'text', text: 'Hello from Claude on Vertex' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 7 },
    };
    const fromClaude = vertexAIAdapter.toOpenAIResponse!(claude, message) as { choices: Array<{ message: { content: string }; finish_reason: string }>; usage: { total_tokens: number } };
    expect(fromClaude.choices[0]).toMatchObject({ message: { content: 'Hello from Claude on Vertex' }, finish_reason: 'stop' });
    expect(fromClaude.usage.total_tokens).toBe(17);

    const gemini = adapterInput({ model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'Hi' }] }, { target: target() });
    const fromGemini = vertexAIAdapter.toOpenAIResponse!(gemini, fixtureJson('generate-content-text.json')) as { choices: Array<{ message: { reasoning_content: string } }> };
    expect(fromGemini.choices[0].message.reasoning_content).toContain('Weighing the options');
  });

  it('embeds through :predict and sums the token counts Vertex reports', async () => {
    const input = adapterInput({ model: 'text-embedding-005', input: ['a', 'b'], dimensions: 3, task_type: 'RETRIEVAL_QUERY' }, { endpoint: 'embeddings', target: target() });
    const call = await vertexAIAdapter.buildCall(input);
    expect(JSON.parse(String(call.body))).toEqual({
      instances: [
        { content: 'a', task_type: 'RETRIEVAL_QUERY' },
        { content: 'b', task_type: 'RETRIEVAL_QUERY' },
      ],
      parameters: { outputDimensionality: 3 },
    });
    expect(vertexAIAdapter.toOpenAIResponse!(input, fixtureJson('vertex-predict-embeddings.json'))).toEqual({
      object: 'list',
      data: [
        { object: 'embedding', index: 0, embedding: [0.0058, 0.011, -0.0023] },
        { object: 'embedding', index: 1, embedding: [0.021, -0.0071, 0.0102] },
      ],
      model: 'text-embedding-005',
      usage: { prompt_tokens: 10, total_tokens: 10 },
    });
  });

  it('refuses a call without credentials with a 401 naming Authorization', async () => {
    const input = adapterInput({ model: 'gemini-2.5-pro', messages: [{ role: 'user', content: 'Hi' }] }, { target: target({ apiKey: undefined }) });
    const error = await asyncGatewayErrorOf(async () => vertexAIAdapter.buildCall(input));
    expect(error.status).toBe(401);
    expect(error.code).toBe('missing_provider_credentials');
    expect(error.param).toBe('authorization');
  });
});

describe('Vertex AI errors', () => {
  it('reads Anthropic-shaped and Google-shaped error bodies', () => {
    expect(summariseVertexError(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })).toMatchObject({ message: 'Overloaded', code: 'overloaded_error' });
    expect(summariseVertexError(403, { error: { code: 403, message: "Permission 'aiplatform.endpoints.predict' denied", status: 'PERMISSION_DENIED' } })).toEqual({
      message: "Permission 'aiplatform.endpoints.predict' denied",
      code: 'permission_denied',
      param: null,
    });
  });
});
