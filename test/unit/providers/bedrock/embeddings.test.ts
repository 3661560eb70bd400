import { describe, expect, it } from 'vitest';
import { bedrockAdapter } from '../../../../shared/providers/bedrock/adapter.js';
import { estimateTokens, loadTokenEstimator } from '../../../../shared/providers/common/token-estimate.js';
import { bedrockInput, converseBody, expectBuildError } from './helpers.js';

const TITAN = 'amazon.titan-embed-text-v2:0';
const COHERE = 'cohere.embed-english-v3';
const embeddings = { endpoint: 'embeddings' as const };
const translate = (body: Record<string, unknown>, providerBody: unknown) => bedrockAdapter.toOpenAIResponse!(bedrockInput(body, embeddings), providerBody);

describe('Bedrock embeddings requests', () => {
  it('sends Titan one inputText, with dimensions', async () => {
    expect(await converseBody({ model: TITAN, input: 'hello world', dimensions: 256 }, embeddings)).toEqual({ inputText: 'hello world', dimensions: 256 });
    expect(await converseBody({ model: TITAN, input: ['only one'] }, embeddings)).toEqual({ inputText: 'only one' });
  });

  it('fans several Titan inputs out into one signed InvokeModel call each, in input order', async () => {
    const call = await bedrockAdapter.buildCall(bedrockInput({ model: TITAN, input: ['a', 'b', 'c'], dimensions: 256 }, embeddings));
    expect(call.fanOut?.concurrency).toBeGreaterThan(1);
    const parts = call.fanOut!.calls;
    expect(parts.map((part) => JSON.parse(String(part.body)))).toEqual([
      { inputText: 'a', dimensions: 256 },
      { inputText: 'b', dimensions: 256 },
      { inputText: 'c', dimensions: 256 },
    ]);
    for (const part of parts) {
      expect(part.url).toBe('https://bedrock-runtime.us-west-2.amazonaws.com/model/amazon.titan-embed-text-v2%3A0/invoke');
      expect(part.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 /);
    }
    // One text stays one plain call, as before.
    expect((await bedrockAdapter.buildCall(bedrockInput({ model: TITAN, input: ['only'] }, embeddings))).fanOut).toBeUndefined();
  });

  it('joins fanned-out Titan answers in order, summing their token counts', () => {
    const answers = [
      { embedding: [1, 0], inputTextTokenCount: 2 },
      { embedding: [0, 1], inputTextTokenCount: 5 },
    ];
    expect(translate({ model: TITAN, input: ['a b', 'c d e f g'] }, { answers })).toEqual({
      object: 'list',
      data: [
        { object: 'embedding', index: 0, embedding: [1, 0] },
        { object: 'embedding', index: 1, embedding: [0, 1] },
      ],
      model: TITAN,
      usage: { prompt_tokens: 7, total_tokens: 7 },
    });
  });

  it('sends Cohere all texts with input_type search_document unless the caller picks another', async () => {
    expect(await converseBody({ model: COHERE, input: ['a', 'b'] }, embeddings)).toEqual({ texts: ['a', 'b'], input_type: 'search_document' });
    expect(await converseBody({ model: `us.${COHERE}`, input: 'q', input_type: 'search_query', truncate: 'END' }, embeddings)).toEqual({
      texts: ['q'],
      input_type: 'search_query',
      truncate: 'END',
    });
  });

  it('refuses dimensions for Cohere v3, which has a fixed size', async () => {
    await expectBuildError(bedrockInput({ model: COHERE, input: 'a', dimensions: 256 }, embeddings), {
      code: 'unsupported_parameter',
      param: 'dimensions',
      message: 'does not support `dimensions`',
    });
  });

  it('refuses token arrays and models of other families', async () => {
    await expectBuildError(bedrockInput({ model: TITAN, input: [1, 2, 3] }, embeddings), { code: 'invalid_input', param: 'input', message: 'token arrays are not supported' });
    await expectBuildError(bedrockInput({ model: 'amazon.nova-2-multimodal-embeddings-v1:0', input: 'a' }, embeddings), {
      code: 'unsupported_model',
      param: 'model',
      message: 'amazon.titan-embed-* and cohere.embed-*',
    });
  });

  it('refuses an encoding_format other than float and base64', async () => {
    await expectBuildError(bedrockInput({ model: TITAN, input: 'a', encoding_format: 'int8' }, embeddings), {
      code: 'invalid_parameter',
      param: 'encoding_format',
      message: '"float" or "base64"',
    });
  });
});

describe('Bedrock embeddings answers', () => {
  it('turns a Titan answer into an OpenAI list with the token count as usage', () => {
    const answer = { embedding: [0.5, -0.25, 0.125], inputTextTokenCount: 4, embeddingsByType: { float: [0.5, -0.25, 0.125] } };
    expect(translate({ model: TITAN, input: 'hello' }, answer)).toEqual({
      object: 'list',
      data: [{ object: 'embedding', index: 0, embedding: [0.5, -0.25, 0.125] }],
      model: TITAN,
      usage: { prompt_tokens: 4, total_tokens: 4 },
    });
  });

  it('turns a Cohere answer (plain or by type) into one entry per text, with the tokens estimated locally', async () => {
    await loadTokenEstimator();
    const longer = 'The quick brown fox jumps over the lazy dog';
    const plain = { id: 'a1b2', response_type: 'embeddings_floats', texts: ['a', 'b'], embeddings: [[0.5], [0.25]] };
    const byType = { id: 'a1b2', response_type: 'embeddings_by_type', texts: ['a', 'b'], embeddings: { float: [[0.5], [0.25]] } };
    for (const answer of [plain, byType]) {
      expect(translate({ model: COHERE, input: ['a', 'b'] }, answer)).toEqual({
        object: 'list',
        data: [
          { object: 'embedding', index: 0, embedding: [0.5] },
          { object: 'embedding', index: 1, embedding: [0.25] },
        ],
        model: COHERE,
        usage: { prompt_tokens: 2, total_tokens: 2 },
      });
    }
    const counted = translate({ model: COHERE, input: [longer, 'a'] }, { embeddings: [[0.5], [0.25]] }) as { usage: { prompt_tokens: number } };
    expect(counted.usage.prompt_tokens).toBe(estimateTokens([longer])! + 1);
    expect(counted.usage.prompt_tokens).toBeGreaterThan(5);
  });

  it('keeps the count Cohere reports (meta.billed_units) over the estimate', () => {
    const answer = { embeddings: [[0.5]], meta: { billed_units: { input_tokens: 17 } } };
    expect((translate({ model: COHERE, input: 'a' }, answer) as { usage: unknown }).usage).toEqual({ prompt_tokens: 17, total_tokens: 17 });
  });

  it('encodes vectors as little-endian float32 base64 when asked (the openai SDK default)', () => {
    const result = translate({ model: TITAN, input: 'a', encoding_format: 'base64' }, { embedding: [0.5, -0.25], inputTextTokenCount: 1 }) as { data: Array<{ embedding: string }> };
    const bytes = Buffer.from(result.data[0].embedding, 'base64');
    expect([bytes.readFloatLE(0), bytes.readFloatLE(4)]).toEqual([0.5, -0.25]);
  });
});
