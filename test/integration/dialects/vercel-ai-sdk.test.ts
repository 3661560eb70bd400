import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { ANTHROPIC_MOCK_TEXT } from '../../support/mock-anthropic.js';
import { OPENAI_MOCK_TEXT } from '../../support/mock-openai-dialects.js';
import { fallbackConfig, targetHeaders, useDialectRig, type DialectRig } from './dialect-setup.js';

let rig: DialectRig;
useDialectRig((started) => (rig = started));

type Target = 'openai' | 'anthropic';
const expectedText = (target: Target) => (target === 'openai' ? OPENAI_MOCK_TEXT : ANTHROPIC_MOCK_TEXT);

/** The Vercel AI SDK's OpenAI provider pointed at gw; its default `openai(model)` calls POST /v1/responses. */
function provider(headers: Record<string, string>) {
  return createOpenAI({ baseURL: `${rig.gateway.url}/v1`, apiKey: 'sk-provider-key', headers: { 'x-gw-api-key': rig.gateway.apiKey, ...headers } });
}
const to = (target: Target) => provider(targetHeaders(target, target === 'openai' ? rig.openai : rig.anthropic));

describe.each<Target>(['openai', 'anthropic'])('Vercel AI SDK (ai@5, @ai-sdk/openai@2) default provider, %s target', (target) => {
  it('generateText goes through /v1/responses', async () => {
    const before = rig.gateway.url;
    const result = await generateText({ model: to(target)('mock-model'), system: 'Be brief.', prompt: 'Hi', maxRetries: 0 });
    expect(result.text).toBe(expectedText(target));
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.usage.outputTokens).toBeGreaterThan(0);
    expect(result.response.headers?.['x-gw-provider']).toBe(target);
    expect(before).toBe(rig.gateway.url);
  });

  it('streamText streams the text and finishes with usage', async () => {
    const result = streamText({ model: to(target)('mock-model'), prompt: 'Hi', maxRetries: 0 });
    const parts: string[] = [];
    for await (const part of result.textStream) parts.push(part);
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.join('')).toBe(expectedText(target));
    expect(await result.finishReason).toBe('stop');
    expect((await result.usage).outputTokens).toBeGreaterThan(0);
  });

  it('runs a tool loop: the SDK executes the tool and sends its result back', async () => {
    const result = await generateText({
      model: to(target)('mock-model'),
      prompt: 'Weather in Paris?',
      maxRetries: 0,
      stopWhen: stepCountIs(3),
      tools: {
        get_weather: tool({
          description: 'Weather of a city',
          inputSchema: jsonSchema<{ location: string }>({ type: 'object', properties: { location: { type: 'string' } }, required: ['location'], additionalProperties: false }),
          execute: async ({ location }) => `21°C in ${location}`,
        }),
      },
    });
    expect(result.steps).toHaveLength(2);
    expect(result.steps[0].toolCalls[0]).toMatchObject({ toolName: 'get_weather', input: { location: 'Paris' } });
    expect(result.text).toBe(expectedText(target));
  });

  it('falls back from a failing target', async () => {
    const result = await generateText({ model: provider({ 'x-gw-config': fallbackConfig(target === 'openai' ? 'anthropic' : 'openai', rig, target) })('mock-model'), prompt: 'Hi', maxRetries: 0 });
    expect(result.text).toBe(expectedText(target));
    expect(result.response.headers?.['x-gw-last-used-option-index']).toBe('config.targets[1]');
  });
});
