import { describe, expect, it } from 'vitest';
import { bedrockAdapter } from '../../../../shared/providers/bedrock/adapter.js';
import { invokeChatFamilyOf, promptOf } from '../../../../shared/providers/bedrock/invoke-chat.js';
import { CohereCommandStreamTranslator } from '../../../../shared/providers/bedrock/invoke-stream.js';
import { eventMessage, exceptionMessage } from '../../../fixtures/bedrock/event-stream.js';
import { bedrockInput, converseBody, expectBuildError } from './helpers.js';

describe('which Bedrock chat models go through InvokeModel', () => {
  it('sends Cohere Command (Light) and Jurassic-2 through InvokeModel, whatever the prefix; the rest through Converse', async () => {
    expect(invokeChatFamilyOf('cohere.command-text-v14')).toBe('cohere-command');
    expect(invokeChatFamilyOf('us.cohere.command-light-text-v14')).toBe('cohere-command');
    expect(invokeChatFamilyOf('arn:aws:bedrock:us-east-1::foundation-model/ai21.j2-mid-v1')).toBe('ai21-jurassic');
    // Command R / R+ and Jamba chat through Converse.
    for (const model of ['cohere.command-r-plus-v1:0', 'cohere.command-r-v1:0', 'ai21.jamba-1-5-large-v1:0', 'amazon.titan-text-express-v1', 'meta.llama3-8b-instruct-v1:0']) {
      expect(invokeChatFamilyOf(model)).toBeUndefined();
    }
    const call = await bedrockAdapter.buildCall(bedrockInput({ model: 'cohere.command-r-v1:0', messages: [{ role: 'user', content: 'Hi' }] }));
    expect(call.url).toMatch(/\/converse$/);
  });
});

describe('InvokeModel chat requests', () => {
  it('sends a lone user message as the prompt, with the system text before it', () => {
    expect(promptOf([{ role: 'user', content: 'Hi' }])).toBe('Hi');
    expect(promptOf([{ role: 'developer', content: 'Rules.' }, { role: 'user', content: 'Hi' }])).toBe('Rules.\n\nHi');
  });

  it('needs the conversation to end with the user', async () => {
    await expectBuildError(bedrockInput({ model: 'ai21.j2-mid-v1', messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello' }] }), {
      code: 'invalid_message',
      param: 'messages',
      message: 'last message must be a user message',
    });
  });

  it('refuses parameters a completion body has no field for, and drops them when asked', async () => {
    const body = { model: 'cohere.command-text-v14', messages: [{ role: 'user', content: 'Hi' }], frequency_penalty: 0.4, n: 1 };
    await expectBuildError(bedrockInput(body), { code: 'unsupported_parameter', param: 'frequency_penalty', message: 'Cohere Command (InvokeModel) does not support `frequency_penalty`' });
    expect(await converseBody(body, { drop: true })).toEqual({ prompt: 'Hi' });
    // Jurassic-2 has penalties of its own.
    expect(await converseBody({ ...body, model: 'ai21.j2-mid-v1' })).toEqual({ prompt: 'Hi', frequencyPenalty: { scale: 0.4 } });
  });

  it('maps Cohere finish reasons: MAX_TOKENS → length, ERROR_TOXIC → content_filter', () => {
    const translate = (reason: string) =>
      (bedrockAdapter.toOpenAIResponse!(bedrockInput({ model: 'cohere.command-text-v14', messages: [] }), { generations: [{ text: 'x', finish_reason: reason }] }) as { choices: Array<{ finish_reason: string }> })
        .choices[0].finish_reason;
    expect(translate('COMPLETE')).toBe('stop');
    expect(translate('MAX_TOKENS')).toBe('length');
    expect(translate('ERROR_TOXIC')).toBe('content_filter');
  });

  it('answers 502 when the answer has no generation', () => {
    expect(() => bedrockAdapter.toOpenAIResponse!(bedrockInput({ model: 'cohere.command-text-v14', messages: [] }), { id: 'x' })).toThrow(/without a generation/);
  });
});

describe('Cohere Command response streams', () => {
  const chunk = (payload: unknown) => eventMessage('chunk', { bytes: Buffer.from(JSON.stringify(payload)).toString('base64') });

  it('ends with an error event when an exception follows text', () => {
    const translator = new CohereCommandStreamTranslator('cohere.command-text-v14', 'chatcmpl-test');
    const first = translator.push(chunk({ text: 'Hel', is_finished: false }));
    expect(first.map((event) => event.type)).toEqual(['chunk', 'chunk']);
    const [failure] = translator.push(exceptionMessage('modelStreamErrorException', 'The stream broke.'));
    expect(failure).toEqual({
      type: 'error',
      status: 424,
      error: { message: 'The stream broke.', type: 'upstream_error', code: 'modelStreamErrorException', param: null },
      providerError: { message: 'The stream broke.' },
    });
    expect(translator.push(chunk({ text: 'lo' }))).toEqual([]);
  });

  it('reports a chunk that is not base64 JSON as an unreadable stream', () => {
    const translator = new CohereCommandStreamTranslator('cohere.command-text-v14');
    const [failure] = translator.push(eventMessage('chunk', { bytes: Buffer.from('not json').toString('base64') }));
    expect(failure).toMatchObject({ type: 'error', status: 502, error: { code: 'invalid_event_stream' } });
  });

  it('leaves a stream that ends before is_finished to the relay (truncated)', () => {
    const translator = new CohereCommandStreamTranslator('cohere.command-text-v14');
    translator.push(chunk({ text: 'Hel', is_finished: false }));
    expect(translator.end()).toEqual([]);
  });
});
