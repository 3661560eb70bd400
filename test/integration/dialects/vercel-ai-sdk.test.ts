import { createOpenAI as createOpenAI2 } from '@ai-sdk/openai';
import { generateText as generateText5, jsonSchema as jsonSchema5, stepCountIs as stepCountIs5, streamText as streamText5, tool as tool5 } from 'ai';
import { describe, expect, it } from 'vitest';
import { createOpenAI4, generateText7, installedNode22ClientVersion, jsonSchema7, stepCountIs7, streamText7, tool7 } from '../../clients/node22/clients.js';
import { ANTHROPIC_MOCK_TEXT } from '../../support/mock-anthropic.js';
import { OPENAI_MOCK_TEXT } from '../../support/mock-openai-dialects.js';
import { fallbackConfig, targetHeaders, useDialectRig, type DialectRig } from './dialect-setup.js';

let rig: DialectRig;
useDialectRig((started) => (rig = started));

type Target = 'openai' | 'anthropic';
const expectedText = (target: Target) => (target === 'openai' ? OPENAI_MOCK_TEXT : ANTHROPIC_MOCK_TEXT);

/** One release pair of the Vercel AI SDK; the calls below are the same in both, so both are typed as ai 5's. */
interface VercelSdk {
  release: string;
  createOpenAI: typeof createOpenAI2;
  generateText: typeof generateText5;
  streamText: typeof streamText5;
  tool: typeof tool5;
  jsonSchema: typeof jsonSchema5;
  stepCountIs: typeof stepCountIs5;
}
const releases: VercelSdk[] = [
  { release: 'ai@5, @ai-sdk/openai@2', createOpenAI: createOpenAI2, generateText: generateText5, streamText: streamText5, tool: tool5, jsonSchema: jsonSchema5, stepCountIs: stepCountIs5 },
  // The current releases, from test/clients/node22 (they declare Node >= 22; run here on Node 20 and 24 alike).
  {
    release: `ai@${installedNode22ClientVersion('ai')}, @ai-sdk/openai@${installedNode22ClientVersion('@ai-sdk/openai')}`,
    ...({ createOpenAI: createOpenAI4, generateText: generateText7, streamText: streamText7, tool: tool7, jsonSchema: jsonSchema7, stepCountIs: stepCountIs7 } as unknown as Omit<VercelSdk, 'release'>),
  },
];

describe.each(releases.flatMap((sdk) => (['openai', 'anthropic'] as Target[]).map((target) => ({ sdk, target }))))('Vercel AI SDK ($sdk.release) default provider, $target target', ({ sdk, target }) => {
  const { createOpenAI, generateText, streamText, tool, jsonSchema, stepCountIs } = sdk;
  /** The Vercel AI SDK's OpenAI provider pointed at gw; its default `openai(model)` calls POST /v1/responses. */
  const provider = (headers: Record<string, string>) =>
    createOpenAI({ baseURL: `${rig.gateway.url}/v1`, apiKey: 'sk-provider-key', headers: { 'x-gw-api-key': rig.gateway.apiKey, ...headers } });
  const to = (target: Target) => provider(targetHeaders(target, target === 'openai' ? rig.openai : rig.anthropic));

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
