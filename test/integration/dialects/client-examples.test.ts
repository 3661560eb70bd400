import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ANTHROPIC_MOCK_TEXT } from '../../support/mock-anthropic.js';
import { OPENAI_MOCK_TEXT } from '../../support/mock-openai-dialects.js';
import { useDialectRig, type DialectRig } from './dialect-setup.js';

let rig: DialectRig;
useDialectRig((started) => (rig = started));

const EXAMPLES = ['openai-responses', 'anthropic-sdk', 'vercel-ai', 'langchain'] as const;
const examplePath = (name: string) => new URL(`../../../docs/examples/clients/${name}.ts`, import.meta.url);

/** Runs one docs example with the environment docs/clients.md tells a user to set. */
async function runExample(name: (typeof EXAMPLES)[number], provider: 'openai' | 'anthropic'): Promise<string> {
  const upstream = provider === 'openai' ? rig.openai : rig.anthropic;
  process.env.GW_BASE_URL = rig.gateway.url;
  process.env.GW_API_KEY = rig.gateway.apiKey;
  process.env.GW_CONFIG = JSON.stringify({ provider, api_key: 'sk-provider-key', custom_host: upstream.url });
  const example = (await import(examplePath(name).href)) as { main(): Promise<string> };
  return example.main();
}

describe('docs/clients.md: every TypeScript example runs against gw', () => {
  it.each(EXAMPLES)('docs/clients.md shows %s.ts as it is', (name) => {
    const doc = readFileSync(new URL('../../../docs/clients.md', import.meta.url), 'utf8');
    expect(doc).toContain(readFileSync(examplePath(name), 'utf8').trim());
  });

  for (const provider of ['openai', 'anthropic'] as const) {
    it.each(EXAMPLES)(`%s answers through a ${provider} target`, async (name) => {
      const text = await runExample(name, provider);
      expect(text).toBe(provider === 'openai' ? OPENAI_MOCK_TEXT : ANTHROPIC_MOCK_TEXT);
    });
  }
});
