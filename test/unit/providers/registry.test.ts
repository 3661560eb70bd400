import { describe, expect, it } from 'vitest';
import { findProvider, onFirstUse, PROVIDER_SLUGS, providerEntries } from '../../../shared/providers/registry.js';
import type { ProviderAdapter } from '../../../shared/providers/types.js';

// The registry answers validation from names written beside each entry and imports the heavier adapters on
// first use (issue #23): the names must be the adapter's own, and loading must give one adapter per provider.

describe('provider registry', () => {
  it.each(providerEntries().map((entry) => [entry.slug, entry] as const))('%s: the entry names what its adapter serves', async (_slug, entry) => {
    const adapter = await entry.load();
    expect({ slug: adapter.slug, aliases: [...adapter.aliases], endpoints: [...adapter.endpoints] }).toEqual({ slug: entry.slug, aliases: [...entry.aliases], endpoints: [...entry.endpoints] });
    expect(await entry.load()).toBe(adapter);
  });

  it('finds providers by slug or alias, in any case, and lists every slug once', () => {
    expect(findProvider(' Gemini ')?.slug).toBe('google');
    expect(findProvider('cloudc')?.slug).toBe('bedrock');
    expect(findProvider('no-such-provider')).toBeUndefined();
    expect(new Set(PROVIDER_SLUGS).size).toBe(PROVIDER_SLUGS.length);
    expect(PROVIDER_SLUGS).toEqual(expect.arrayContaining(['openai', 'anthropic', 'azure-openai', 'bedrock', 'google', 'vertex-ai']));
  });

  it('a failed import is tried again on the next load; an adapter that does not match its entry is refused', async () => {
    const adapter = { slug: 'demo', aliases: ['d'], endpoints: ['chat'], buildCall: () => ({ url: 'x', headers: {}, body: '' }) } as unknown as ProviderAdapter;
    let imports = 0;
    const flaky = onFirstUse({ slug: 'demo', aliases: ['d'], endpoints: ['chat'] }, async () => {
      if (++imports === 1) throw new Error('chunk not found');
      return adapter;
    });
    await expect(flaky.load()).rejects.toThrow('chunk not found');
    expect((await flaky.load()).slug).toBe('demo');
    expect(imports).toBe(2);

    const drifted = onFirstUse({ slug: 'demo', aliases: [], endpoints: ['chat', 'embeddings'] }, async () => adapter);
    await expect(drifted.load()).rejects.toThrow("the registry entry of provider 'demo' does not match its adapter");
  });
});
