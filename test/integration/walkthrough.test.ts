import { describe, expect, it } from 'vitest';
import type { TestGateway } from '../support/gateway.js';
import { useGatewayWithUpstream } from '../support/harness.js';
import { openAIMockHandler } from '../support/mock-openai.js';
import type { MockUpstream } from '../support/mock-upstream.js';

let gateway: TestGateway;
let upstream: MockUpstream;
useGatewayWithUpstream(openAIMockHandler({ content: 'Your order ships tomorrow.' }), (started) => ({ gateway, upstream } = started));

/** One step of the README walkthrough: the same method, path, key and body as the curl there. */
async function step<T>(method: string, path: string, key: string, body: unknown, extra: Record<string, string> = {}): Promise<{ status: number; body: T }> {
  const response = await fetch(`${gateway.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-gw-api-key': key, ...extra },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as T };
}

describe('the README control-plane walkthrough, step by step', () => {
  it('workspace → key → virtual key → prompt → render → completion', async () => {
    const admin = gateway.apiKey;

    // 1. A workspace.
    const workspace = await step<{ id: string; slug: string }>('POST', '/v1/workspaces', admin, { name: 'Support' });
    expect(workspace.status).toBe(201);
    expect(workspace.body.slug).toBe('support');

    // 2. A key for it.
    const key = await step<{ key: string; workspace_id: string }>('POST', '/v1/api-keys', admin, {
      name: 'support-app',
      workspace_id: 'support',
      scopes: ['completions:write', 'prompts:write', 'prompts:render', 'virtual_keys:write'],
    });
    expect(key.status).toBe(201);
    expect(key.body.workspace_id).toBe(workspace.body.id);
    const KEY = key.body.key;

    // 3. A virtual key holding the provider credential (the README's is OpenAI itself; here the mock provider).
    const virtualKey = await step<{ id: string }>('POST', '/v1/virtual-keys', KEY, {
      name: 'openai',
      provider: 'openai',
      credential: 'sk-walkthrough-secret',
      custom_host: upstream.url,
    });
    expect(virtualKey.status).toBe(201);
    const VK = virtualKey.body.id;

    // 4. A prompt.
    const prompt = await step<{ id: string }>('POST', '/v1/prompts', KEY, {
      name: 'support reply',
      messages: [
        { role: 'system', content: 'You are the support agent of {{company}}.' },
        { role: 'user', content: '{{question}}' },
      ],
      model: 'gpt-4o-mini',
    });
    expect(prompt.status).toBe(201);

    // 5. Render it.
    const rendered = await step<{ success: boolean; data: Record<string, unknown> }>('POST', `/v1/prompts/${prompt.body.id}/render`, KEY, {
      variables: { company: 'Acme', question: 'Where is my order?' },
    });
    expect(rendered.status).toBe(200);
    expect(rendered.body.success).toBe(true);
    expect(rendered.body.data.messages).toEqual([
      { role: 'system', content: 'You are the support agent of Acme.' },
      { role: 'user', content: 'Where is my order?' },
    ]);

    // 6. The completion, with the rendered prompt as the body, unchanged.
    const completion = await step<{ choices: Array<{ message: { content: string } }> }>('POST', '/v1/chat/completions', KEY, rendered.body.data, { 'x-gw-virtual-key': VK });
    expect(completion.status).toBe(200);
    expect(completion.body.choices[0].message.content).toBe('Your order ships tomorrow.');
    const sent = upstream.requests.at(-1)!;
    expect(sent.headers.authorization).toBe('Bearer sk-walkthrough-secret');
    expect(sent.json).toEqual(rendered.body.data);
  });
});
