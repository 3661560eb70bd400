import { describe, expect, it } from 'vitest';
import { CHAT_FEATURES, chatFeatureCell, type ChatFeature } from '../../../shared/providers/chat-features.js';
import { renderChatFeatureTable } from '../../../shared/providers/capability-table.js';
import { providerEntries } from '../../../shared/providers/registry.js';
import type { AdapterInput, TargetSettings, UpstreamCall } from '../../../shared/providers/types.js';

// Issue #47: docs/providers.md's chat-feature table (stream, tools, structured output, vision per provider) is generated
// from shared/providers/chat-features.ts. A table that claims a feature an adapter drops, or leaves blank one it
// translates, is a doc-drift defect: here every provider's adapter is asked to build each feature, and ✓ must show up in
// the call it builds (by a marker only the feature carries), blank must be a 400 naming the parameter, and pass must
// reach the provider as the client wrote it.

const TOOL = { type: 'function', function: { name: 'marker_tool_lookup', description: 'Look up', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } } };
const SCHEMA = { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object', properties: { marker_schema_field: { type: 'string' } }, required: ['marker_schema_field'] } } };
const IMAGE = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

const REQUESTS: Record<ChatFeature, { body: Record<string, unknown>; marker: string; param: string }> = {
  stream: { body: { stream: true }, marker: '', param: 'stream' },
  tools: { body: { tools: [TOOL], tool_choice: 'auto' }, marker: 'marker_tool_lookup', param: 'tools' },
  json_schema: { body: { response_format: SCHEMA }, marker: 'marker_schema_field', param: 'response_format' },
  vision: { body: { messages: [{ role: 'user', content: [{ type: 'text', text: 'What is it?' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${IMAGE}` } }] }] }, marker: IMAGE, param: 'messages' },
};

const MODELS: Record<string, string> = { bedrock: 'anthropic.claude-3-5-sonnet-20241022-v2:0', google: 'gemini-2.0-flash', 'vertex-ai': 'gemini-2.0-flash', replicate: 'meta/meta-llama-3-8b-instruct', watsonx: 'meta-llama/llama-3-2-11b-vision-instruct', cohere: 'command-a-vision-07-2025' };

function target(slug: string): TargetSettings {
  return {
    provider: slug,
    apiKey: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ0In0.c2ln',
    customHost: 'http://127.0.0.1:9/v1',
    aws: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', region: 'us-east-1' },
    vertex: { projectId: 'p', region: 'us-central1' },
    azure: { resourceName: 'r', deploymentId: 'd' },
    accounts: { 'x-gw-watsonx-project-id': '12345678-1234-1234-1234-123456789abc' },
  };
}

async function build(slug: string, feature: ChatFeature): Promise<UpstreamCall> {
  const adapter = await providerEntries().find((entry) => entry.slug === slug)!.load();
  const body = { model: MODELS[slug] ?? 'some-model', messages: [{ role: 'user', content: 'Hi' }], ...REQUESTS[feature].body };
  const input: AdapterInput = { endpoint: 'chat', body, stream: feature === 'stream', target: target(slug), forwardHeaders: {} };
  const prepared = adapter.prepare ? await adapter.prepare(input, { fetchImage: () => Promise.reject(new Error('no links here')) }) : input;
  return adapter.buildCall(prepared);
}

const CASES = providerEntries()
  .filter((entry) => entry.endpoints.includes('chat'))
  .flatMap((entry) => CHAT_FEATURES.map((feature) => [entry.slug, feature, chatFeatureCell(entry.slug, feature)] as const));

describe('chat features per provider (docs/providers.md, generated)', () => {
  it('every provider that serves chat has a cell for every feature, so the table renders', () => {
    expect(CASES.filter(([, , cell]) => cell === undefined)).toEqual([]);
    expect(renderChatFeatureTable().split('\n').length).toBe(2 + CASES.length / CHAT_FEATURES.length);
  });

  it.each(CASES)('doc drift: %s %s is %s in the table and does exactly that', async (slug, feature, cell) => {
    const request = REQUESTS[feature];
    if (cell === '') {
      await expect(build(slug, feature)).rejects.toMatchObject({ status: 400, code: 'unsupported_parameter', param: expect.stringContaining(request.param) });
      return;
    }
    const call = await build(slug, feature);
    const sent = typeof call.body === 'string' ? call.body : new TextDecoder().decode(call.body);
    if (feature === 'stream') {
      // A stream is asked of the provider: its streaming URL, an SSE accept header or `stream` in the body; Replicate
      // alone streams to the client a prediction awaited whole (`Prefer: wait`, docs/providers/replicate.md).
      if (slug === 'replicate') expect(call.headers.prefer).toMatch(/^wait/);
      else expect(/stream|sse/i.test(call.url) || call.headers.accept === 'text/event-stream' || /"stream":true/.test(sent), `${slug}: ${call.url}`).toBe(true);
      return;
    }
    expect(sent, `${slug} ${feature}`).toContain(request.marker);
    if (cell === 'pass') expect(JSON.parse(sent)).toMatchObject(request.body);
  });
});
