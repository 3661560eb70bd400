import { describe, expect, it } from 'vitest';
import { GuardrailResolver } from '../../../shared/gateway/guardrail-resolver.js';

function countingSource() {
  const calls: string[] = [];
  const stored = { id: 'grd-a', name: 'a', version: 3, type: 'add_prefix', config: { prefix: '> ' } };
  return {
    calls,
    source: {
      async load(workspaceId: string, id: string, version?: number) {
        calls.push(`load ${workspaceId} ${id} ${version ?? 'latest'}`);
        await new Promise((resolve) => setImmediate(resolve));
        return id === 'grd-a' ? { ...stored, version: version ?? stored.version } : undefined;
      },
      async workspaceDefaults(workspaceId: string) {
        calls.push(`defaults ${workspaceId}`);
        return ['grd-a'];
      },
    },
  };
}

describe('GuardrailResolver', () => {
  it('reads the store once for a burst of cold requests, then serves from memory', async () => {
    const { calls, source } = countingSource();
    const resolver = new GuardrailResolver(source);
    const burst = await Promise.all(Array.from({ length: 200 }, () => resolver.guardrail('ws1', 'grd-a')));
    expect(burst.every((guardrail) => guardrail?.id === 'grd-a' && guardrail.version === 3)).toBe(true);
    await Promise.all(Array.from({ length: 200 }, () => resolver.workspaceDefaults('ws1')));
    await resolver.guardrail('ws1', 'grd-a');
    expect(calls).toEqual(['load ws1 grd-a latest', 'defaults ws1']);
  });

  it('keeps workspaces and pinned versions apart, does not cache a miss, and forgets a workspace on demand', async () => {
    const { calls, source } = countingSource();
    const resolver = new GuardrailResolver(source);
    expect((await resolver.guardrail('ws1', 'grd-a@1'))?.version).toBe(1);
    expect(await resolver.guardrail('ws2', 'grd-missing')).toBeUndefined();
    expect(await resolver.guardrail('ws2', 'grd-missing')).toBeUndefined();
    expect(await resolver.guardrail('ws2', 'not a reference')).toBeUndefined();
    resolver.forget('ws1');
    await resolver.guardrail('ws1', 'grd-a@1');
    expect(calls).toEqual(['load ws1 grd-a 1', 'load ws2 grd-missing latest', 'load ws2 grd-missing latest', 'load ws1 grd-a 1']);
  });
});
