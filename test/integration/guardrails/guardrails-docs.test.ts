import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { GUARDRAIL_TYPES } from '../../../shared/guardrails/schemas.js';
import { drainAllBackgroundWork } from '../../../shared/observability/background.js';
import type { TestGateway } from '../../support/gateway.js';
import { useGatewayWithUpstream } from '../../support/harness.js';
import { openAIMockHandler } from '../../support/mock-openai.js';
import type { MockUpstream } from '../../support/mock-upstream.js';
import { createGuardrail, mockTarget, send, toMock } from './guardrails-support.js';

// docs/guardrails.md shows one example per type, and a request it governs: both are executed here as written.
let gateway: TestGateway;
let upstream: MockUpstream;
useGatewayWithUpstream(openAIMockHandler(), (started) => ({ gateway, upstream } = started));
afterAll(() => drainAllBackgroundWork());

const page = readFileSync(new URL('../../../docs/guardrails.md', import.meta.url), 'utf8');

/** The JSON block right after `<!-- <marker>: <type> -->`. */
function block(marker: string, type: string): Record<string, unknown> {
  const match = new RegExp(`<!-- ${marker}: ${type} -->\\s*\`\`\`json\\n([\\s\\S]*?)\\n\`\`\``).exec(page);
  if (!match) throw new Error(`docs/guardrails.md has no ${marker} for ${type}`);
  return JSON.parse(match[1]) as Record<string, unknown>;
}

interface DocumentedRequest {
  path: string;
  body: Record<string, unknown>;
  expect: { status: number; code?: string; param?: string | null; upstream?: Record<string, unknown> };
}

describe('docs/guardrails.md examples', () => {
  it.each(GUARDRAIL_TYPES)('%s: the example is accepted and does what the page says', async (type) => {
    const example = block('example', type);
    expect(example.type).toBe(type);
    const guardrail = await createGuardrail(gateway, example);
    const documented = block('example-request', type) as unknown as DocumentedRequest;
    const before = upstream.requests.length;
    const sent = await send(gateway, documented.path, documented.body, toMock(upstream, { ...mockTarget(upstream), input_guardrails: [guardrail.id] }));
    expect(sent.status, JSON.stringify(sent.body)).toBe(documented.expect.status);
    if (documented.expect.code) {
      expect(sent.body.error).toMatchObject({ type: 'guardrail_violation', code: documented.expect.code, param: documented.expect.param ?? null });
      expect(upstream.requests.length).toBe(before);
    }
    if (documented.expect.upstream) expect(upstream.requests.at(-1)!.json).toMatchObject(documented.expect.upstream);
  });
});
